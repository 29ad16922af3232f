/**
 * How deep the userset tree below `type:id#relation` goes, for closed direct relations
 * (compiled-model.ts): the longest chain of userset tuples (`group:a#member` member of
 * `group:b`, ...). The resolver answers such a relation by walking up from the user, and may do
 * so only where the top-down walk OpenFGA describes would stay within the depth limit
 * (depth + height <= MAX_DEPTH); elsewhere it falls back to that walk, which raises the error.
 *
 * Heights are cached per node for one model and one state of the userset tuples: the tuple
 * index drops the cache whenever a tuple whose user is a userset is added or removed. Deeper
 * than the limit, or part of a cycle, is Infinity (the resolver then takes the top-down walk,
 * whose cycle and depth rules are the reference).
 */
import type { CompiledModel } from './compiled-model.js';
import type { DirectUsers } from './direct-users.js';
import { typeOf } from './tuple-format.js';
import type { TupleReader } from './tuple-reader.js';

/** Above this many nodes below, walking up from the user is cheaper than walking down. */
const SIZE_CAP = 1 << 20;

/** A node's height, and how many userset nodes the top-down walk may visit below it (shared nodes counted once per path: an upper bound). */
export interface NodeHeight {
  height: number;
  size: number;
}

/** Serials of UsersetHeights instances: what index entries remember instead of the instance. */
let serials = 0;

export class UsersetHeights {
  /**
   * Told apart from every other instance. An index entry remembers this number, not the instance,
   * so an entry not asked since holds no dropped heights (with their memo and model) alive.
   */
  readonly serial = ++serials;
  /** One entry per node: the resolver asks for both numbers at once, with one probe. */
  private readonly memo = new Map<string, NodeHeight>();
  private readonly onStack = new Set<string>();

  constructor(
    readonly model: CompiledModel,
    private readonly reader: TupleReader,
    private readonly limit: number,
  ) {}

  /**
   * Height (Infinity past the limit) and size of the node `object#relation` whose index entry is
   * `users`, remembered on the entry until these heights are dropped (a check then builds no key
   * string for it).
   */
  at(users: DirectUsers, object: string, relation: string): NodeHeight {
    if (users.heightFrom === this.serial && users.height) return users.height;
    const node = `${object}#${relation}`;
    if (!this.memo.has(node)) this.height(node, typeOf(object), relation, 0);
    // Asked at level 0 with nothing on the stack, height() always stores its answer.
    const h = this.memo.get(node)!;
    users.heightFrom = this.serial;
    users.height = h;
    return h;
  }

  private height(node: string, type: string, relation: string, level: number): number {
    const known = this.memo.get(node);
    if (known !== undefined) return known.height;
    // Past the limit below the first node asked, or a cycle: not ours to answer (see header).
    if (level > this.limit || this.onStack.has(node)) return Infinity;
    const sets = this.reader.usersetUsers(node);
    let h = 0;
    let size = 1;
    if (sets) {
      this.onStack.add(node);
      for (const u of sets) {
        if (!this.model.fits(type, relation, u)) continue;
        const hash = u.lastIndexOf('#');
        h = Math.max(h, 1 + this.height(u, u.slice(0, u.indexOf(':')), u.slice(hash + 1), level + 1));
        if (h === Infinity) break;
        size = Math.min(SIZE_CAP, size + (this.memo.get(u)?.size ?? 1));
      }
      this.onStack.delete(node);
    }
    if (h > this.limit) h = Infinity;
    this.memo.set(node, { height: h, size });
    return h;
  }
}
