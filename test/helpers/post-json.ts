/**
 * A JSON POST as a first-party browser page makes it (same-origin `Origin`), optionally with a
 * bearer token, bounded by a timeout so that a test never hangs on a server that does not answer.
 */
export function postJson(base: string, path: string, body: unknown, bearer?: string, timeoutMs = 20_000) {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      origin: base,
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
}
