/**
 * Errors of a provider exchange. Their message is fixed text chosen here, safe to show: tokens,
 * codes, client secrets and the provider's raw answers never reach a message, a redirect or a log.
 */
export class ProviderError extends Error {
  constructor(
    /** A short reason for the log (`missing_subject`, `wrong_tenant`). */
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** The log's reason for any error thrown during an exchange: a code or class name, never its text. */
export function reasonOf(err: unknown): string {
  if (err instanceof ProviderError) return err.reason;
  if (err && typeof err === 'object') {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Za-z0-9_.:-]{1,96}$/.test(code)) return code;
    const name = (err as { name?: unknown }).name;
    if (typeof name === 'string') return name.slice(0, 64);
  }
  return 'unknown';
}
