/**
 * The resolver's walks up from a checked user (`Resolver.reach`: the usersets of closed direct
 * relations the user holds, like every group it is a member of, directly or through nested
 * groups), kept from one check to the next. Zanzibar keeps such membership closures in a
 * separate index (Leopard); here they are remembered per user on the node's own tuple index.
 *
 * Without it every uncached check walked the user's memberships again: on the bench data set at
 * 1M tuples the walk and its reverse-index probes were about a tenth of a REST check's server
 * time (a CPU profile of bench/fga), for an answer that changes only when a tuple it read changes.
 *
 * What a walk read decides what forgets it (TupleIndex calls these on every add and remove):
 * - a tuple whose user is one plain user (`user:anne`, or an object such as `folder:x`) can
 *   change only that user's walk: that user's entry goes;
 * - a tuple whose user is a userset (`group:x#member`, read by every walk that passes that
 *   group) or a wildcard (`user:*`, held by every user of the type), or a clear: every entry goes.
 * A new model or another cap on the walk's size starts a new memory: walks depend on both.
 */
import type { RelationPlan } from './check-plan.js';
import type { CompiledModel } from './compiled-model.js';

/** The userset nodes a user reaches, as objects by relation (`type:id` strings). */
export type Reached = Map<RelationPlan, Set<string>>;
/** One user's walks, by the closed direct relation each led into (null: past the cap). */
export type UserReach = Map<RelationPlan, Reached | null>;

/**
 * Users whose walks are kept. Measured on the bench data set at 1M tuples (300,000 checks of
 * random users, heap after GC): 95,000 users kept for 64 MB, ~670 B per user including the
 * frontiers those checks built meanwhile; a user in no group shares one empty answer. So the
 * default costs at most ~70 MB next to the ~600 MB the index holds at that size. The oldest entry
 * goes first once the memory is full.
 */
export const KEPT_REACH_USERS = 100_000;

export class KeptReach {
  private readonly byUser = new Map<string, UserReach>();
  private model: CompiledModel | undefined;
  private cap = 0;

  constructor(private readonly maxUsers = KEPT_REACH_USERS) {}

  get size(): number {
    return this.byUser.size;
  }

  /**
   * The walks kept for `user` under `model` with walks capped at `cap`: the same map every time
   * until something forgets it; the resolver adds to it as it walks.
   */
  forUser(model: CompiledModel, cap: number, user: string): UserReach {
    if (model !== this.model || cap !== this.cap) {
      this.byUser.clear();
      this.model = model;
      this.cap = cap;
    }
    let kept = this.byUser.get(user);
    if (kept === undefined) {
      if (this.byUser.size >= this.maxUsers) this.byUser.delete(this.byUser.keys().next().value as string);
      this.byUser.set(user, (kept = new Map()));
    }
    return kept;
  }

  /** A tuple whose user is `user` (plain, not a userset or a wildcard) was added or removed. */
  forgetUser(user: string): void {
    if (this.byUser.size > 0) this.byUser.delete(user);
  }

  /** A tuple whose user is a userset or a wildcard changed, or the index was cleared. */
  forgetAll(): void {
    if (this.byUser.size > 0) this.byUser.clear();
  }
}
