import { readFileSync } from 'node:fs';
import { startParty } from './parties.js';
import { httpRun, postJson } from './http.js';
import { hashPassword, PRODUCTION_PARAMS } from '../../plugins/users/password.js';
const cpu = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
const hs = await startParty({ kind: 'latchkey', flags: { 'rate-limit-per-minute': 0, 'jwt-secret': 'bench-secret-bench-secret-bench-secret-0123' } });
const stored = await hashPassword('Bench-pass-1', PRODUCTION_PARAMS);
const ceil = await startParty({ kind: 'argon2', stored, password: 'Bench-pass-1', concurrency: 2 });
const P = 'Bench-pass-1';
await postJson(`${hs.url}/v1/signup`, { email: 'b@example.com', password: P, confirm_password: P }, { origin: hs.origin });
for (let round = 0; round < 2; round++) {
  let c0 = cpu(ceil.pid); let t0 = Date.now();
  const c = await ceil.run(5);
  console.log(`ceiling: ${c.rps.toFixed(1)} ops/s, ${((cpu(ceil.pid) - c0) / (c.rps * 5)).toFixed(2)} ms cpu/op, cores ${((cpu(ceil.pid) - c0) / (Date.now() - t0)).toFixed(2)}`);
  c0 = cpu(hs.pid); t0 = Date.now();
  const r = await httpRun({ url: `${hs.url}/v1/login`, method: 'POST', headers: { 'content-type': 'application/json', origin: hs.origin }, body: JSON.stringify({ email: 'b@example.com', password: P }), durationS: 5, connections: 32 });
  const used = cpu(hs.pid) - c0;
  console.log(`login: ${r.rps.toFixed(1)} req/s, ${(used / (r.rps * 5)).toFixed(2)} ms cpu/login, cores ${(used / (Date.now() - t0)).toFixed(2)}`);
}
await Promise.all([hs.close(), ceil.close()]);
