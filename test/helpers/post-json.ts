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

/**
 * A same-origin JSON POST that must answer 200: its JSON body, or an error naming the path, the
 * status and the answer (a set-up step, where anything else means the scene is not what it claims).
 */
export async function postOk(
  base: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base, ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}
