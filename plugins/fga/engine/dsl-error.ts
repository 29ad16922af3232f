/**
 * A model the engine refuses. `line` is 1-based for people; the message names it so the
 * `invalid_argument` an admin sees points at the offending `define` or `type`.
 */
export class ModelError extends Error {
  constructor(
    readonly detail: string,
    /** 1-based line, 0 when the problem is not tied to one line. */
    readonly line: number,
    readonly kind: string,
  ) {
    super(line > 0 ? `invalid model: line ${line}: ${detail}` : `invalid model: ${detail}`);
    this.name = 'ModelError';
  }
}
