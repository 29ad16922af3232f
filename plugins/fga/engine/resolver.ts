/**
 * Check: does `user` have `relation` on `object`? OpenFGA semantics: direct tuples (only those
 * the current model admits), `type:*` wildcards, usersets both as tuple users and as the checked
 * user, computed relations, tuple-to-userset (parents whose type lacks the relation are
 * skipped), union, intersection and exclusion.
 *
 * One Resolver serves one request and remembers every sub-question it answered, so a batch or a
 * list never evaluates the same `(object, relation, user)` twice. A sub-question met again while
 * still being evaluated is a cycle and counts as false; an answer that relied on such an
 * assumption about an outer question is only reused while that outer question is still open,
 * which keeps the result the least fixed point (what a cycle-free derivation can prove).
 * More than MAX_DEPTH nested dispatches is an error, as in OpenFGA (resolve depth 25).
 *
 * Closed direct relations (like `member: [user, group#member]`, see compiled-model.ts) are
 * answered bottom-up: the set of usersets the user reaches through fitting tuples (`reach`,
 * computed once per user per request) contains the node or not. That costs the user's own
 * memberships instead of the whole tree below a big group (trees of up to SMALL_TREE nodes, and users reaching more
 * than REACH_CAP usersets, are still walked top-down). It is used only on the node's own
 * index (not with contextual tuples) and only where the top-down walk would neither exceed the
 * depth limit nor meet a cycle (userset-heights.ts), so answers and errors stay the same.
 */
import { ServiceError } from '../../../core/errors.js';
import type { CompiledModel } from './compiled-model.js';
import { TupleIndex } from './tuple-index.js';
import type { TupleReader } from './tuple-reader.js';
import { shapeOf } from './tuple-format.js';
import type { UsersetHeights } from './userset-heights.js';
import type { RelationDef, Rewrite } from './types.js';

export const MAX_DEPTH = 25;
/**
 * Userset trees up to this many nodes are walked top-down (see the header). Measured on the bench
 * data set (bench/fga/engine-only.ts): 2 halves p50 and p99 against 32 at 1M tuples.
 */
export const SMALL_TREE = 2;
/**
 * A user reaching more usersets than this (a member of thousands of groups) is answered
 * top-down for the rest of the check: walking up would cost more than it saves.
 */
export const REACH_CAP = 4096;

export interface ResolverOptions {
  /** Userset trees up to this size are walked top-down; 0 walks every eligible one bottom-up (tests). */
  smallTree?: number;
  /** Overrides REACH_CAP (tests). */
  reachCap?: number;
}

export class DepthExceededError extends ServiceError {
  constructor() {
    super('invalid_argument', `authorization model resolution too complex: more than ${MAX_DEPTH} nested hops`);
  }
}

interface TaintedAnswer {
  /** Stack height and frame id of the outermost open question this answer assumed false. */
  height: number;
  frame: number;
}

export class Resolver {
  /**
   * Answers by checked user, then by `object#relation` (the user is the same in every
   * sub-question of one check, so the inner key is the same string the tuple index is asked
   * with: built and hashed once per sub-question).
   */
  private readonly memos = new Map<string, Map<string, boolean>>();
  private memo = new Map<string, boolean>();
  /** Within one check (cleared at its start): answers that assumed an open question false. */
  private readonly tainted = new Map<string, TaintedAnswer>();
  private readonly open = new Map<string, number>();
  /** Ids of the open frames, by stack height. */
  private readonly frames: number[] = [];
  private nextFrame = 1;
  /** Lowest stack height of an open question hit by the evaluation in progress. */
  private taint = Infinity;
  /** Sub-questions evaluated (not served from memory); exposed for tests and metrics. */
  evaluations = 0;
  private readonly heights: UsersetHeights | undefined;
  /** The node's own index when reading it directly (no contextual tuples): one probe per direct step. */
  private readonly index: TupleIndex | undefined;
  /** user -> the `type:id#relation` nodes of closed direct relations it reaches. */
  private readonly reached = new Map<string, Set<string> | null>();

  private readonly smallTree: number;
  private readonly reachCap: number;
  private userShape = '';
  private userIsSet = false;
  private userWildcard = '';

  constructor(
    readonly model: CompiledModel,
    readonly reader: TupleReader,
    options: ResolverOptions = {},
  ) {
    this.smallTree = options.smallTree ?? SMALL_TREE;
    this.reachCap = options.reachCap ?? REACH_CAP;
    if (reader instanceof TupleIndex) {
      this.index = reader;
      if (model.closedDirect.size > 0) this.heights = reader.usersetHeights(model, MAX_DEPTH);
    }
  }

  /** Entry point; `object` is `type:id`, `user` any tuple user form. Inputs must be validated. */
  check(object: string, relation: string, user: string): boolean {
    this.taint = Infinity;
    // The checked user is the same in every sub-question: its shape and wildcard once.
    this.userShape = shapeOf(user);
    this.userIsSet = user.includes('#');
    this.userWildcard = this.userIsSet ? '' : `${user.slice(0, user.indexOf(':'))}:*`;
    let memo = this.memos.get(user);
    if (!memo) this.memos.set(user, (memo = new Map()));
    this.memo = memo;
    this.tainted.clear();
    return this.resolve(object, relation, user, 0);
  }

  private resolve(object: string, relation: string, user: string, depth: number): boolean {
    const key = `${object}#${relation}`;
    const known = this.memo.get(key);
    if (known !== undefined) return known;
    const t = this.tainted.size > 0 ? this.tainted.get(key) : undefined;
    if (t && this.frames[t.height] === t.frame) {
      if (t.height < this.taint) this.taint = t.height;
      return false;
    }
    const openAt = this.open.get(key);
    if (openAt !== undefined) {
      // A cycle: this question is already being asked further up.
      if (openAt < this.taint) this.taint = openAt;
      return false;
    }
    if (depth > MAX_DEPTH) throw new DepthExceededError();
    // `group:x#member` has `member` on `group:x` by definition (OpenFGA self-defining userset).
    if (key === user) return true;
    const type = object.slice(0, object.indexOf(':'));
    const def = this.model.relation(type, relation);
    if (!def) return false;
    // Without usersets below (height 0) the direct lookup of the top-down walk is cheaper.
    if (this.heights && this.model.closedDefs.has(def) && this.reader.usersetUsers(key)) {
      const h = this.heights.of(key);
      // A small tree below is cheaper to walk down than the user's memberships up.
      const reached = depth + h <= MAX_DEPTH && this.heights.size(key) > this.smallTree ? this.reach(user, `${type}#${relation}`) : null;
      if (reached) {
        this.evaluations++;
        const value = reached.has(key);
        this.memo.set(key, value);
        return value;
      }
    }
    const height = this.frames.length;
    this.frames.push(this.nextFrame++);
    this.open.set(key, height);
    const outerTaint = this.taint;
    this.taint = Infinity;
    let value: boolean;
    try {
      this.evaluations++;
      value = this.rewrite(def.rewrite, def, type, object, key, user, depth);
    } finally {
      this.open.delete(key);
      this.frames.pop();
    }
    const inner = this.taint;
    if (value || inner >= height) {
      this.memo.set(key, value);
      this.taint = outerTaint;
    } else {
      this.tainted.set(key, { height: inner, frame: this.frames[inner] });
      this.taint = Math.min(outerTaint, inner);
    }
    return value;
  }

  /** `key` is `object#<def.name>`. */
  private rewrite(rw: Rewrite, def: RelationDef, type: string, object: string, key: string, user: string, depth: number): boolean {
    switch (rw.kind) {
      case 'this':
        return this.direct(def, key, user, depth);
      case 'computed':
        return this.resolve(object, rw.relation, user, depth + 1);
      case 'ttu': {
        const parents = this.reader.directUsers(`${object}#${rw.tupleset}`);
        if (!parents) return false;
        const tupleset = this.model.relation(type, rw.tupleset);
        const allowed = tupleset ? this.model.defShapes.get(tupleset) : undefined;
        if (!allowed) return false;
        for (const parent of parents) {
          // Tupleset relations admit plain objects only (model-validator.ts): a stored userset or
          // wildcard left from an older model does not fit, and a plain parent's shape is its type.
          if (parent.includes('#') || parent.endsWith(':*')) continue;
          const ptype = parent.slice(0, parent.indexOf(':'));
          if (!allowed.has(ptype) || !this.model.relation(ptype, rw.computed)) continue;
          if (this.resolve(parent, rw.computed, user, depth + 1)) return true;
        }
        return false;
      }
      case 'union':
        for (const c of rw.children) if (this.rewrite(c, def, type, object, key, user, depth)) return true;
        return false;
      case 'intersection':
        for (const c of rw.children) if (!this.rewrite(c, def, type, object, key, user, depth)) return false;
        return true;
      case 'exclusion':
        return this.rewrite(rw.base, def, type, object, key, user, depth) && !this.rewrite(rw.subtract, def, type, object, key, user, depth);
    }
  }

  private direct(def: RelationDef, key: string, user: string, depth: number): boolean {
    const allowed = this.model.defShapes.get(def)!;
    let plain: ReadonlySet<string> | undefined;
    let sets: ReadonlySet<string> | undefined;
    if (this.index) {
      const users = this.index.usersOf(key);
      if (!users) return false;
      plain = users.plain;
      sets = users.sets;
    } else {
      plain = this.userIsSet ? undefined : this.reader.directUsers(key);
      sets = this.reader.usersetUsers(key);
    }
    if (plain && !this.userIsSet) {
      if (plain.has(user) && allowed.has(this.userShape)) return true;
      const wildcard = this.userWildcard;
      if (wildcard !== user && plain.has(wildcard) && allowed.has(wildcard)) return true;
    }
    if (!sets) return false;
    if (this.userIsSet && sets.has(user) && allowed.has(this.userShape)) return true;
    for (const u of sets) {
      const h = u.lastIndexOf('#');
      const object = u.slice(0, h);
      const relation = u.slice(h + 1);
      if (!allowed.has(`${object.slice(0, object.indexOf(':'))}#${relation}`)) continue;
      if (this.resolve(object, relation, user, depth + 1)) return true;
    }
    return false;
  }

  /**
   * Every node of the closed direct relations leading into `target` (`type#relation`) that
   * `user` holds, walking up from its own tuples (and its type's wildcard); null past the cap.
   */
  private reach(user: string, target: string): Set<string> | null {
    const memoKey = `${user} ${target}`;
    const known = this.reached.get(memoKey);
    if (known !== undefined) return known;
    const nodes = new Set<string>();
    const feeders = this.model.closedFeeders.get(target)!;
    const queue = [user];
    const shape = shapeOf(user);
    // A plain user also holds what `type:*` holds (direct(): wildcard tuples).
    if (!user.includes('#') && !shape.endsWith(':*')) queue.push(`${shape}:*`);
    for (let i = 0; i < queue.length; i++) {
      const u = queue[i];
      for (const rel of this.model.closedByShape.get(shapeOf(u)) ?? []) {
        if (!feeders.has(`${rel.type}#${rel.relation}`)) continue;
        const ids = this.reader.objectIds(rel.type, rel.relation, u);
        if (!ids) continue;
        for (const id of ids) {
          const node = `${rel.type}:${id}#${rel.relation}`;
          if (nodes.has(node)) continue;
          nodes.add(node);
          queue.push(node);
          if (nodes.size > this.reachCap) {
            this.reached.set(memoKey, null);
            return null;
          }
        }
      }
    }
    this.reached.set(memoKey, nodes);
    return nodes;
  }
}
