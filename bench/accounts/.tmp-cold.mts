import { readFileSync } from 'node:fs';
import { startParty } from './parties.js';
import { httpRun, postJson } from './http.js';
const cpu = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
const SECRET = 'bench-secret-bench-secret-bench-secret-0123';
const hs = await startParty({ kind: 'latchkey', flags: { 'rate-limit-per-minute': 0, 'jwt-secret': SECRET } });
const bare = await startParty({ kind: 'bare', alg: 'HS256', secret: SECRET, issuer: hs.origin });
const P = 'Bench-pass-1';
await postJson(`${hs.url}/v1/signup`, { email: 'tok@example.com', password: P, confirm_password: P }, { origin: hs.origin });
const many = await hs.mint(24000, 'tok@example.com');
const h = { 'content-type': 'application/json', origin: hs.origin };
for (const [name, party, run] of [
  ['bare', bare, () => httpRun({ url: bare.url, durationS: 5, vary: (i) => ({ headers: { authorization: `Bearer ${many[i % many.length]}` } }) })],
  ['vjt', hs, () => httpRun({ url: `${hs.url}/v1/validate_jwt_token`, method: 'POST', headers: h, durationS: 5, vary: (i) => ({ body: JSON.stringify({ token_type: 'access_token', token: many[i % many.length] }) }) })],
  ['profile', hs, () => httpRun({ url: `${hs.url}/v1/profile`, durationS: 5, vary: (i) => ({ headers: { authorization: `Bearer ${many[i % many.length]}` } }) })],
] as const) {
  const c0 = cpu(party.pid);
  const r = await run();
  console.log(name, r.rps.toFixed(0), 'req/s', ((cpu(party.pid) - c0) / (r.rps * 5) * 1000).toFixed(0), 'us cpu/req', r.errors);
}
await Promise.all([hs.close(), bare.close()]);
