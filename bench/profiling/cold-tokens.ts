/**
 * Development aid, not part of `npm run bench`: the accounts bench's cold HS256 rows alone, with
 * server CPU per request. `profile` (bearer) and `validate_jwt_token` on Latchkey against the bare
 * routes verifying the same tokens, every request a token neither side has seen lately: 24,000
 * tokens of one session, each side going on through them in strict order (autocannon), as the
 * bench does.
 *
 *   npx tsx bench/profiling/cold-tokens.ts
 *
 * Environment: R rounds (default 3), S seconds per run (4), HOT seconds of one-token traffic to
 * each side first (default 0; the bench's order: Latchkey answers it from its cache, the bare
 * route verifies), WARM seconds of one untimed round before the timed ones (default 0; the bench
 * warms for 10 since session 25), LOGINS seconds of password logins (wrk, 8 in flight) that
 * Latchkey answers first (default 0; the bench's HS256 server has served its login rows before its
 * token rows), SIGNUPS seconds of the bench's signup loop (16 in flight, unique emails) before
 * the logins and the token runs (default 0; the bench's HS256 server has signed up ~550 users by then),
 * BENCH_CPU_PROF=<dir> (every party writes a CPU profile there; cpuprofile-summary.ts reads it),
 * AGAINST=<another checkout of Latchkey, with node_modules or a link to them> (that checkout's
 * server, same flags, with its own user and tokens, runs beside this one in every round, the two
 * taking turns going first: an A/B of two versions; compare their means over the rounds, since
 * this VM's speed drifts within a run, the bare route's by up to a third).
 *
 * Why not wrk: a wrk Lua script cycling through the same tokens saw Latchkey's verified-token
 * cache hit more and more (0%, 12%, 62% over three runs, counted in the server; cause not found,
 * a strict cycle gives ~0.2%), which made the cold rows look like 90-95% of bare.
 */
import { join, resolve } from 'node:path';
import { partyOf, startParty, startProcess, type Party } from '../accounts/parties.js';
import { procCpuSeconds } from '../child.js';
import { httpRun, postJson } from '../accounts/http.js';
import { VERIFIED_CACHE_MAX } from '../../plugins/tokens/service.js';
import { describeMachine } from '../machine.js';
import { closedLoop, wrkLoad } from '../load.js';

console.log(`machine: ${describeMachine()}`);

const SECRET = 'profiling-secret-0123456789abcdef0123456789';
const PASSWORD = 'Correct-horse-9';
const seconds = Number(process.env.S ?? 4);
const rounds = Number(process.env.R ?? 3);
const hotSeconds = Number(process.env.HOT ?? 0);
const warmSeconds = Number(process.env.WARM ?? 0);
const loginSeconds = Number(process.env.LOGINS ?? 0);
const signupSeconds = Number(process.env.SIGNUPS ?? 0);

const flags = { 'rate-limit-per-minute': 0, 'memory-store': 'database', 'jwt-secret': SECRET };
const latchkey = await startParty({ kind: 'latchkey', flags });
const bare = await startParty({ kind: 'bare', alg: 'HS256', secret: SECRET, issuer: latchkey.origin });
await postJson(`${latchkey.url}/v1/signup`, { email: 'cold@example.com', password: PASSWORD, confirm_password: PASSWORD }, { origin: latchkey.origin });
const tokens = await latchkey.mint(VERIFIED_CACHE_MAX + 4000, 'cold@example.com');
// AGAINST=<another checkout>: that checkout's server, same flags, its own user and tokens, measured
// beside this one in every round (the two take turns going first): an A/B of two versions.
const againstDir = process.env.AGAINST;
let against: { party: Party; tokens: string[]; at: number } | undefined;
if (againstDir) {
  const root = resolve(againstDir);
  const { child, ready } = await startProcess(join(root, 'bench/accounts/child.ts'), [JSON.stringify({ kind: 'latchkey', flags })], ['--import', 'tsx'], root);
  const party = partyOf(child, ready);
  await postJson(`${party.url}/v1/signup`, { email: 'cold@example.com', password: PASSWORD, confirm_password: PASSWORD }, { origin: party.origin });
  against = { party, tokens: await party.mint(VERIFIED_CACHE_MAX + 4000, 'cold@example.com'), at: 0 };
}
if (signupSeconds > 0) {
  // As the bench's HS256 server has: a signup loop (16 in flight, unique emails) before its logins.
  let n = 0;
  const r = await closedLoop(() => postJson(`${latchkey.url}/v1/signup`, { email: `s${n++}@example.com`, password: PASSWORD, confirm_password: PASSWORD }, { origin: latchkey.origin }), 16, signupSeconds);
  console.log(`signups first: ${Math.round(r.rps * signupSeconds)} in ${signupSeconds} s`);
}
if (loginSeconds > 0) {
  const body = JSON.stringify({ email: 'cold@example.com', password: PASSWORD });
  const r = await wrkLoad({ url: `${latchkey.url}/v1/login`, method: 'POST', headers: { 'content-type': 'application/json', origin: latchkey.origin }, body, connections: 8, durationS: loginSeconds });
  if (!r) throw new Error('LOGINS needs wrk (apt-get install wrk)');
  // A refused login is cheap and would not be the work this phase stands for.
  if (r.errors > 0) throw new Error(`LOGINS: ${r.errors} logins failed`);
  console.log(`logins first: ${Math.round(r.rps * loginSeconds)} in ${loginSeconds} s`);
}

async function measure(party: Party, label: string, load: () => ReturnType<typeof httpRun>): Promise<void> {
  const before = procCpuSeconds(party.pid);
  const t0 = performance.now();
  const result = await load();
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = procCpuSeconds(party.pid) - before;
  console.log(label.padEnd(22), `${Math.round(result.rps)} req/s`.padEnd(14), `${((cpu * 1e6) / (result.rps * elapsed)).toFixed(1)} µs/req`, result.errors ? `(${result.errors} errors)` : '');
}

let latchkeyAt = 0;
let bareAt = 0;
const nextForLatchkey = () => tokens[latchkeyAt++ % tokens.length];
const nextForBare = () => tokens[bareAt++ % tokens.length];
const post = { 'content-type': 'application/json', origin: latchkey.origin };
const bareBase = bare.url.replace(/\/verify$/, '');
/** One round of the four runs, `s` seconds each; `tag` marks untimed ones in the output. */
let roundNo = 0;
async function round(s: number, tag = ''): Promise<void> {
  const other = against;
  const nextForOther = () => (other ? other.tokens[other.at++ % other.tokens.length] : '');
  const profileOf = (party: Party, next: () => string) => () => httpRun({ url: `${party.url}/v1/profile`, durationS: s, vary: () => ({ headers: { authorization: `Bearer ${next()}` } }) });
  const validateOf = (party: Party, next: () => string) => () =>
    httpRun({ url: `${party.url}/v1/validate_jwt_token`, method: 'POST', headers: { ...post, origin: party.origin }, durationS: s, vary: () => ({ body: JSON.stringify({ token_type: 'access_token', token: next() }) }) });
  /** This server's run and AGAINST's, in turns: this one first in even rounds. */
  const pair = async (what: string, mine: () => ReturnType<typeof httpRun>, theirs: (() => ReturnType<typeof httpRun>) | undefined) => {
    const runs: [Party, string, () => ReturnType<typeof httpRun>][] = [[latchkey, `latchkey ${what}${tag}`, mine]];
    if (other && theirs) runs.push([other.party, `AGAINST ${what}${tag}`, theirs]);
    if (roundNo % 2 === 1) runs.reverse();
    for (const [party, label, load] of runs) await measure(party, label, load);
  };
  await measure(bare, `bare GET${tag}`, () => httpRun({ url: `${bareBase}/verify`, durationS: s, vary: () => ({ headers: { authorization: `Bearer ${nextForBare()}` } }) }));
  await pair('profile', profileOf(latchkey, nextForLatchkey), other && profileOf(other.party, nextForOther));
  await measure(bare, `bare POST${tag}`, () => httpRun({ url: `${bareBase}/validate`, method: 'POST', headers: post, durationS: s, vary: () => ({ body: JSON.stringify({ token_type: 'access_token', token: nextForBare() }) }) }));
  await pair('validate', validateOf(latchkey, nextForLatchkey), other && validateOf(other.party, nextForOther));
  roundNo++;
}
if (hotSeconds > 0) {
  // As the bench runs its one-token rows first: Latchkey answers them from its cache, the bare
  // route verifies each one. A token of its own: one of the cycle's, cached here, would be a hit
  // in every pass of the cold rounds.
  const [one] = await latchkey.mint(1, 'cold@example.com');
  await measure(bare, 'bare GET (one token)', () => httpRun({ url: `${bareBase}/verify`, durationS: hotSeconds, headers: { authorization: `Bearer ${one}` } }));
  await measure(latchkey, 'latchkey profile (one token)', () => httpRun({ url: `${latchkey.url}/v1/profile`, durationS: hotSeconds, headers: { authorization: `Bearer ${one}` } }));
}
if (warmSeconds > 0) await round(warmSeconds, ' (warm-up)');
for (let r = 0; r < rounds; r++) await round(seconds);
await latchkey.close();
await against?.party.close();
await bare.close();
