/**
 * What one Resolver remembers while it evaluates: answers by object and relation, the stack of
 * open questions, and the answers that assumed an open question false (a cycle), with when such
 * an answer still stands. The evaluation itself is resolver.ts.
 */
import { DepthExceededError, HOP_LIMIT, MAX_DEPTH } from './resolver-limits.js';
import { EMPTY, withHeight, withHeights, type TaintedAnswer, type UserMemory } from './resolver-memory.js';

export abstract class ResolverMemory {
  /**
   * What is known by checked user, then by object: one state per relation of the object's type
   * (`RelationPlan.slot`). Keyed by the object string as given or as kept in the index's views,
   * whose hash is computed once, instead of an `object#relation` string built per sub-question.
   */
  protected memo = new Map<string, number[]>();
  /** The memories of the other users checked by this resolver (a batch may name several). */
  protected others: Map<string, UserMemory> | undefined;
  /** Within one check (cleared at its start): answers that assumed an open question false, by `object#relation`. */
  protected tainted: Map<string, TaintedAnswer> | undefined;
  /** Ids of the open frames, by stack height. */
  protected readonly frames: number[] = [];
  /** Within one check: frames some question found open (a cycle), by id; only these can be assumed. */
  protected cycled: Set<number> | undefined;
  /**
   * Within one check: frames found open by a cycle that then closed false, by id, with what
   * their own answer assumed (null: nothing). An answer that assumed such a frame false stands
   * on those assumptions instead.
   */
  protected closedFalse: Map<number, TaintedAnswer | null> | undefined;
  /**
   * What `standing` found for closed frames, by id: without it, chains of frames that closed
   * false were followed once per path, and a check of a model dense in cycles took seconds with
   * a few dozen evaluations. A closed frame's outcome never changes; what it rests on is a set
   * of open frames, which holds while the innermost of them is still open (`top`).
   */
  protected standingOf: Map<number, { on: readonly number[] | null; top: number }> | undefined;
  protected nextFrame = 1;
  /** Stack heights of the open questions the evaluation in progress assumed false, ascending (undefined: none). */
  protected assumed: number[] | undefined;
  /** Deepest hop reached by the evaluation in progress (a remembered answer counts as deep as its evaluation went). */
  protected deepest = 0;
  /** Sub-questions evaluated (not served from memory); exposed for tests and metrics. */
  evaluations = 0;

  /** Keeps an answer that assumed the open questions at `heights` false (see `standing`). */
  protected remember(
    object: string,
    relation: string,
    heights: number[],
    value: boolean,
    below: number,
    failedAt: number | undefined,
  ): TaintedAnswer {
    const kept: TaintedAnswer = { heights, frames: heights.map((h) => this.frames[h]), value, below, failedAt };
    (this.tainted ??= new Map()).set(`${object}#${relation}`, kept);
    return kept;
  }

  /**
   * Whether an answer that assumed the frames `ids` (at `heights`) false still stands, and on
   * which open questions: null when one of them closed true or failed (the answer must be
   * evaluated afresh); else the heights of the open questions it now rests on (EMPTY: none). A
   * frame that closed false passes its own assumptions on.
   */
  protected standing(heights: readonly number[], ids: readonly number[]): readonly number[] | null {
    const top = heights.length - 1;
    // All open, the common case: the innermost open means every one below it is the same frame.
    if (this.frames[heights[top]] === ids[top]) return heights;
    let out: number[] | undefined;
    for (let i = 0; i <= top; i++) {
      if (this.frames[heights[i]] === ids[i]) {
        out = withHeight(out, heights[i]);
        continue;
      }
      const via = this.closedStanding(ids[i]);
      if (via === null) return null;
      if (via !== EMPTY) out = withHeights(out, via);
    }
    return out ?? EMPTY;
  }

  /** `standing` of a closed frame: null unless it closed false; else what its own answer rests on now. */
  protected closedStanding(id: number): readonly number[] | null {
    const known = this.standingOf?.get(id);
    if (
      known !== undefined &&
      (known.on === null || known.on === EMPTY || this.frames[known.on[known.on.length - 1]] === known.top)
    )
      return known.on;
    const closed = this.closedFalse?.get(id);
    const on = closed === undefined ? null : closed === null ? EMPTY : this.standing(closed.heights, closed.frames);
    (this.standingOf ??= new Map()).set(id, {
      on,
      top: on === null || on === EMPTY ? 0 : this.frames[on[on.length - 1]],
    });
    return on;
  }

  /** A remembered answer whose evaluation reached `deepest` from here: refused past MAX_DEPTH, as evaluating it afresh would be. */
  protected reuse(value: boolean, deepest: number): boolean {
    if (deepest > MAX_DEPTH) throw HOP_LIMIT;
    if (deepest > this.deepest) this.deepest = deepest;
    return value;
  }

  /**
   * A branch of a union (or of the usersets and parents a relation fans out to), an intersection
   * or an exclusion failed. OpenFGA evaluates such branches at once and lets one whose answer
   * decides win over a sibling that failed on the depth limit (internal/graph/check.go `union`,
   * `intersection`, `exclusion`); evaluated in turn here, a depth failure is kept (the first one)
   * and the other branches still run: `a or b` with `a` too deep and `b` true is true, whatever
   * the order of the branches. The failed branch is left out
   * of how deep the answer went, so a remembered answer stands for the branches that gave it.
   * Any other error goes on up.
   */
  protected failedBranch(err: unknown, mark: number, first: DepthExceededError | undefined): DepthExceededError {
    // Only the hop limit, which failures remember (FAILED), lets the other branches go on. The
    // computed-nesting limit ends the check: it is not remembered (it depends on the path, not
    // the depth), and letting siblings go on past it would walk a lattice once per path, 2^K
    // times.
    if (!(err instanceof DepthExceededError) || !err.hops) throw err;
    this.deepest = mark;
    return first ?? err;
  }
}
