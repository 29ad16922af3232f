/**
 * An in-memory tuple index: forward (`object#relation` -> users, plain and usersets apart) and
 * reverse (`type#relation@user` -> object ids). It is the TupleReader of every store and the
 * overlay for contextual tuples.
 */
import type { CompiledModel } from './compiled-model.js';
import { DirectUsers } from './direct-users.js';
import type { TupleReader } from './tuple-reader.js';
import type { Tuple } from './types.js';
import { UsersetHeights } from './userset-heights.js';

function addTo(map: Map<string, Set<string>>, key: string, value: string): boolean {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  if (set.has(value)) return false;
  set.add(value);
  return true;
}

function removeFrom(map: Map<string, Set<string>>, key: string, value: string): boolean {
  const set = map.get(key);
  if (!set || !set.delete(value)) return false;
  if (set.size === 0) map.delete(key);
  return true;
}

export class TupleIndex implements TupleReader {
  /**
   * One entry per `object#relation` holding both kinds of users: the resolver asks for both in a
   * row, and one probe of a big map is most of what a lookup costs.
   */
  private readonly forward = new Map<string, DirectUsers<Set<string>>>();
  private readonly reverse = new Map<string, Set<string>>();
  private count = 0;
  /** Cached userset heights (userset-heights.ts); dropped when a userset tuple changes. */
  private heights: UsersetHeights | undefined;

  get size(): number {
    return this.count;
  }

  add(t: Tuple): boolean {
    const i = t.object.indexOf(':');
    const fwd = `${t.object}#${t.relation}`;
    let users = this.forward.get(fwd);
    if (!users) this.forward.set(fwd, (users = new DirectUsers<Set<string>>(undefined, undefined)));
    const isSet = t.user.includes('#');
    const set = isSet ? (users.sets ??= new Set()) : (users.plain ??= new Set());
    if (set.has(t.user)) return false;
    set.add(t.user);
    users.changed(isSet);
    if (isSet) this.heights = undefined;
    addTo(this.reverse, `${t.object.slice(0, i)}#${t.relation}@${t.user}`, t.object.slice(i + 1));
    this.count++;
    return true;
  }

  remove(t: Tuple): boolean {
    const i = t.object.indexOf(':');
    const fwd = `${t.object}#${t.relation}`;
    const users = this.forward.get(fwd);
    const isSet = t.user.includes('#');
    const set = isSet ? users?.sets : users?.plain;
    if (!users || !set || !set.delete(t.user)) return false;
    users.changed(isSet);
    if (set.size === 0) {
      if (isSet) users.sets = undefined;
      else users.plain = undefined;
      if (!users.plain && !users.sets) this.forward.delete(fwd);
    }
    if (isSet) this.heights = undefined;
    removeFrom(this.reverse, `${t.object.slice(0, i)}#${t.relation}@${t.user}`, t.object.slice(i + 1));
    this.count--;
    return true;
  }

  has(t: Tuple): boolean {
    const users = this.forward.get(`${t.object}#${t.relation}`);
    return (t.user.includes('#') ? users?.sets : users?.plain)?.has(t.user) ?? false;
  }

  clear(): void {
    this.forward.clear();
    this.reverse.clear();
    this.count = 0;
    this.heights = undefined;
  }

  /** The userset heights for `model` over the current tuples (built lazily, kept until a userset tuple changes). */
  usersetHeights(model: CompiledModel, limit: number): UsersetHeights {
    if (!this.heights || this.heights.model !== model) this.heights = new UsersetHeights(model, this, limit);
    return this.heights;
  }

  directUsers(objectRelation: string): ReadonlySet<string> | undefined {
    return this.forward.get(objectRelation)?.plain;
  }

  usersetUsers(objectRelation: string): ReadonlySet<string> | undefined {
    return this.forward.get(objectRelation)?.sets;
  }

  /** Both kinds at once (one probe), with their parsed views: what the resolver's hops read. */
  usersOf(objectRelation: string): DirectUsers | undefined {
    return this.forward.get(objectRelation);
  }

  objectIds(type: string, relation: string, user: string): ReadonlySet<string> | undefined {
    return this.reverse.get(`${type}#${relation}@${user}`);
  }
}

function merged(a: ReadonlySet<string> | undefined, b: ReadonlySet<string> | undefined): ReadonlySet<string> | undefined {
  if (!b) return a;
  if (!a) return b;
  return new Set([...a, ...b]);
}

/** The store's reader with a request's contextual tuples on top (SPEC.md check_permissions 3). */
export class OverlayReader implements TupleReader {
  constructor(
    private readonly base: TupleReader,
    private readonly extra: TupleIndex,
  ) {}

  static of(base: TupleReader, tuples: readonly Tuple[]): TupleReader {
    if (tuples.length === 0) return base;
    const extra = new TupleIndex();
    for (const t of tuples) extra.add(t);
    return new OverlayReader(base, extra);
  }

  directUsers(key: string): ReadonlySet<string> | undefined {
    return merged(this.base.directUsers(key), this.extra.directUsers(key));
  }

  usersetUsers(key: string): ReadonlySet<string> | undefined {
    return merged(this.base.usersetUsers(key), this.extra.usersetUsers(key));
  }

  objectIds(type: string, relation: string, user: string): ReadonlySet<string> | undefined {
    return merged(this.base.objectIds(type, relation, user), this.extra.objectIds(type, relation, user));
  }
}
