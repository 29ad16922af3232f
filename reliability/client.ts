/**
 * How the harness calls a server: JSON over fetch with the Origin header that state-changing
 * posts need, a deadline on every call (a call past it counts as a hang, status 0), and the
 * latency of each call.
 */
import { ADMIN_SECRET, CLIENT_ID, CLIENT_SECRET } from './server-process.js';

export interface Answer {
  /** HTTP status; 0 when no answer came before the deadline or the connection failed. */
  status: number;
  body: Record<string, unknown>;
  ms: number;
  /** Why there is no status: 'timeout' or the connection error. */
  failure?: string;
}

export interface CallOptions {
  admin?: boolean;
  bearer?: string;
  timeoutMs?: number;
  headers?: Record<string, string>;
  method?: string;
  /** Sent as is with this content type instead of JSON. */
  form?: URLSearchParams;
}

export async function call(base: string, path: string, body?: unknown, opts: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { origin: base, ...opts.headers };
  if (opts.admin) headers['x-service-admin-secret'] = ADMIN_SECRET;
  if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
  let payload: string | undefined;
  if (opts.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    payload = opts.form.toString();
  } else if (body !== undefined) {
    headers['content-type'] ??= 'application/json';
    payload = JSON.stringify(body);
  }
  const started = performance.now();
  try {
    const res = await fetch(`${base}${path}`, {
      method: opts.method ?? (payload === undefined ? 'GET' : 'POST'),
      headers,
      body: payload,
      signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
    });
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      json = { text };
    }
    return { status: res.status, body: json, ms: performance.now() - started };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    const failure = e.name === 'TimeoutError' ? 'timeout' : (e.cause?.code ?? e.message);
    return { status: 0, body: {}, ms: performance.now() - started, failure };
  }
}

/** An admin call that must answer 200. */
export async function admin(base: string, name: string, body: unknown): Promise<Record<string, unknown>> {
  const a = await call(base, `/v1/admin/${name}`, body, { admin: true });
  if (a.status !== 200) throw new Error(`${name}: ${a.status} ${a.failure ?? JSON.stringify(a.body)}`);
  return a.body;
}

export const PASSWORD = 'Reliable-pass-1';

/** Signs a user up; the answer carries `user.id` and the tokens. */
export const signup = (base: string, email: string, extra: Record<string, unknown> = {}, timeoutMs?: number) =>
  call(
    base,
    '/v1/signup',
    { email, password: PASSWORD, confirm_password: PASSWORD, ...extra },
    timeoutMs ? { timeoutMs } : {},
  );

export const login = (base: string, email: string, timeoutMs?: number) =>
  call(
    base,
    '/v1/login',
    { email, password: PASSWORD, scope: ['openid', 'email', 'profile', 'offline_access'] },
    timeoutMs ? { timeoutMs } : {},
  );

export const refresh = (base: string, token: string, timeoutMs?: number) =>
  call(base, '/oauth/token', undefined, {
    form: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: token,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    }),
    ...(timeoutMs ? { timeoutMs } : {}),
  });

export const profile = (base: string, bearer: string, timeoutMs?: number) =>
  call(base, '/v1/profile', undefined, { bearer, ...(timeoutMs ? { timeoutMs } : {}) });

export const health = (base: string, timeoutMs = 12_000) => call(base, '/healthz', undefined, { timeoutMs });

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `ok` holds or `ms` pass; the milliseconds it took, or null. */
export async function within(ms: number, ok: () => Promise<boolean>, everyMs = 250): Promise<number | null> {
  const start = performance.now();
  while (performance.now() - start < ms) {
    if (await ok()) return performance.now() - start;
    await sleep(everyMs);
  }
  return null;
}

/** The q-quantile (0..1) of a list of numbers. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
}

/**
 * A user who can sign in under --enable-email-verification: signed up, marked verified by the
 * admin, logged in. The login answer (tokens), or the first answer that was not a 200.
 */
export async function verifiedUser(
  base: string,
  email: string,
  extra: Record<string, unknown> = {},
  timeoutMs = 15_000,
): Promise<Answer & { id?: string }> {
  const made = await signup(base, email, extra, timeoutMs);
  if (made.status !== 200) return made;
  const id = String((made.body.user as { id: string }).id);
  const marked = await call(base, '/v1/admin/update_user', { id, email_verified: true }, { admin: true, timeoutMs });
  if (marked.status !== 200) return { ...marked, id };
  return { ...(await login(base, email, timeoutMs)), id };
}
