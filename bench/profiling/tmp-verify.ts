import { startTestServer } from '../../test/helpers/server.js';
import { hmacJws } from '../../plugins/tokens/hmac-jws.js';
import { RequestContext } from '../../core/context.js';
const SECRET = 'profiling-secret-0123456789abcdef0123456789';
const server = await startTestServer({ flags: { 'rate-limit-per-minute': 0, 'memory-store': 'database', 'jwt-secret': SECRET } });
const PASSWORD = 'Correct-horse-9';
await fetch(`${server.url}/v1/signup`, { method: 'POST', headers: { 'content-type': 'application/json', origin: server.url }, body: JSON.stringify({ email: 'cold@example.com', password: PASSWORD, confirm_password: PASSWORD }) });
const kernel = server.kernel;
const users = kernel.service('users');
const user = (await users.findByEmail('cold@example.com'))!;
const session = await kernel.service('sessions').create({ userId: user.id, roles: user.roles, scopes: ['openid'], amr: ['pwd'] });
const tokens = kernel.service('tokens');
const out: string[] = [];
for (let i = 0; i < 24000; i++) out.push((await tokens.issue({ user, session, scopes: ['openid'], roles: user.roles })).access_token);
const h = hmacJws('HS256', new TextEncoder().encode(SECRET), '', tokens.issuer);
const fresh = (t: string) => (' ' + t).slice(1);
const validate = kernel.operations.get('validate_jwt_token')!;
const profile = kernel.operations.get('profile')!;
const N = Number(process.env.N ?? 8);
// Batches of N in flight, as requests of one event-loop turn.
async function batch(f: (t: string) => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < out.length; i += N) await Promise.all(out.slice(i, i + N).map((t) => f(fresh(t))));
  return ((performance.now() - t0) * 1000) / out.length;
}
const ctxOf = (headers: Record<string, string>) => new RequestContext({ kernel, transport: 'rest', ip: '127.0.0.1', headers });
for (let round = 0; round < 4; round++) {
  const a = await batch(async (t) => h.verify(t, Math.floor(Date.now() / 1000)));
  const b = await batch((t) => tokens.verifyAccessToken(t));
  const c = await batch((t) => kernel.invokeCompiled(validate, ctxOf({}), { token_type: 'access_token', token: t }));
  const d = await batch((t) => kernel.invokeCompiled(profile, ctxOf({ authorization: `Bearer ${t}` }), undefined));
  console.log(`hmac ${a.toFixed(2)}  verifyAccessToken ${b.toFixed(2)}  invoke validate ${c.toFixed(2)}  invoke profile ${d.toFixed(2)} µs`);
}
await server.close();
