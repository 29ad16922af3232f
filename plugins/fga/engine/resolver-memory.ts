/**
 * How a resolver encodes what it knows of one sub-question (a number per object and relation),
 * and the sets of open questions an answer assumed false (stack heights, ascending).
 */
import type { Reached, UserReach } from './kept-reach.js';

export interface TaintedAnswer {
  /** Stack heights of the open questions this answer assumed false, ascending. */
  heights: number[];
  /**
   * Ids of the frames at those heights. The answer stands while each of them is open, or closed
   * false (its assumption was right) with its own assumptions standing in turn (`standing`).
   * Kept only while the outermost was open, an answer would outlive an inner question it assumed
   * false after that question closed true (`s: p or x`, `x: s or d`, `p: x and s` with `d` true
   * would answer `p` false); kept only while all were open, a model dense in cycles would be
   * evaluated once per path and a check would run for minutes.
   */
  frames: number[];
  value: boolean;
  /** How many hops below the question its evaluation went (see `answered`). */
  below: number;
  /**
   * Set when the question failed on the hop limit at this depth: while the question it assumed
   * false is still open, it fails again at once as deep or deeper (as FAILED for clean ones).
   * Without it, a lattice of usersets past the limit with a cycle back to the top was evaluated
   * once per path, 2^K times (a test with a cycle at every node).
   */
  failedAt?: number;
}

/**
 * Per object and relation slot (check-plan.ts): not asked yet (0), open at stack height
 * `state - OPEN`, or answered: a negative number holding the answer and how many hops below
 * the question its evaluation went. A remembered answer is reused only where evaluating it
 * afresh would stay within MAX_DEPTH, so an answer found for one check of a batch never lets
 * another check skip the depth limit it would hit on its own.
 */
export const UNKNOWN = 0;
export const OPEN = 3;
/**
 * Failed on the hop limit at depth `state - FAILED`, with nothing assumed about an open question.
 * Asked again as deep or deeper it fails again at once (every branch only goes deeper, so none
 * can decide where none did); asked shallower it is evaluated afresh. Without this, a lattice of
 * usersets past the limit would be evaluated once per path, 2^K times.
 */
export const FAILED = 1 << 30;
export const answered = (value: boolean, below: number): number => -(1 + 2 * below + (value ? 1 : 0));
export const answerOf = (state: number): boolean => ((-state - 1) & 1) === 1;
export const belowOf = (state: number): number => (-state - 1) >> 1;

/** No open question assumed (see `Resolver.standing`). */
export const EMPTY: readonly number[] = Object.freeze([]);

/** `heights` (ascending, owned by the caller) with `h` added. */
export function withHeight(heights: number[] | undefined, h: number): number[] {
  if (heights === undefined) return [h];
  let i = heights.length;
  while (i > 0 && heights[i - 1] > h) i--;
  if (i === 0 || heights[i - 1] !== h) heights.splice(i, 0, h);
  return heights;
}

/** `heights` with every height of `more` added; `more` itself is never changed or kept. */
export function withHeights(heights: number[] | undefined, more: readonly number[] | undefined): number[] | undefined {
  if (more === undefined) return heights;
  if (heights === undefined) return more.slice();
  for (const h of more) heights = withHeight(heights, h);
  return heights;
}

/**
 * The heights below `height` (the frame that is closing: its own question and those opened
 * inside it are no longer open), or undefined when none are. Truncates `heights` in place: the
 * closing frame owns it.
 */
export function below(heights: number[] | undefined, height: number): number[] | undefined {
  if (heights === undefined) return undefined;
  let n = heights.length;
  while (n > 0 && heights[n - 1] >= height) n--;
  if (n === 0) return undefined;
  heights.length = n;
  return heights;
}

/** A walk up that found no userset (never added to: walks build their own map). */
export const NOTHING_REACHED: Reached = new Map();

/** What a resolver remembers of one checked user. */
export interface UserMemory {
  memo: Map<string, number[]>;
  reached: UserReach | undefined;
}
