/**
 * The users of one `object#relation`, plain (and wildcard) users and usersets apart, as the tuple
 * index holds them, with the parsed views the resolver's hops need: the plain users that are
 * objects with their types (tuple-to-userset parents), and the usersets split into object,
 * relation and shape. A view is built on first use and kept until that side of the entry
 * changes (the index calls `changed`), so a hop taken again by later checks parses nothing.
 */
import type { ObjectTuples } from './tuple-index.js';
import { shapeOf, typeOf } from './tuple-format.js';
import type { NodeHeight } from './userset-heights.js';

/**
 * A plain object among the users: a tuple-to-userset parent candidate. `tuples` is the tuple
 * index's entry for the object, remembered by the index (tuple-index.ts `tuplesAt`).
 */
export interface ObjectUser {
  object: string;
  type: string;
  tuples?: ObjectTuples | undefined;
}

/** A userset user `type:id#relation` taken apart; `tuples` as in ObjectUser. */
export interface UsersetUser {
  /** `type:id#relation`, as stored. */
  user: string;
  object: string;
  relation: string;
  /** `type#relation`: what a direct type restriction names. */
  shape: string;
  tuples?: ObjectTuples | undefined;
}

/** `S` is `Set<string>` in the index, which changes the sets in place. */
export class DirectUsers<S extends ReadonlySet<string> = ReadonlySet<string>> {
  /** The node's userset height, from the heights whose `serial` is `heightFrom` (userset-heights.ts `at`): valid while those heights are. */
  height: NodeHeight | undefined;
  heightFrom = 0;
  private objectsView: readonly ObjectUser[] | undefined;
  private usersetsView: readonly UsersetUser[] | undefined;

  constructor(
    public plain: S | undefined,
    public sets: S | undefined,
  ) {}

  /** The plain users that are objects (not `type:*`), in insertion order. */
  objects(): readonly ObjectUser[] {
    if (this.objectsView) return this.objectsView;
    const out: ObjectUser[] = [];
    for (const u of this.plain ?? []) {
      // A userset or a wildcard is no parent (model-validator.ts: tuplesets admit plain types only).
      if (u.includes('#') || u.endsWith(':*')) continue;
      out.push({ object: u, type: typeOf(u), tuples: undefined });
    }
    return (this.objectsView = out);
  }

  /** The userset users taken apart, in insertion order. */
  usersets(): readonly UsersetUser[] {
    if (this.usersetsView) return this.usersetsView;
    const out: UsersetUser[] = [];
    for (const u of this.sets ?? []) {
      const h = u.lastIndexOf('#');
      const object = u.slice(0, h);
      const relation = u.slice(h + 1);
      out.push({ user: u, object, relation, shape: shapeOf(u), tuples: undefined });
    }
    return (this.usersetsView = out);
  }

  /** Drops the view of the side that changed. */
  changed(usersets: boolean): void {
    if (usersets) this.usersetsView = undefined;
    else this.objectsView = undefined;
  }
}
