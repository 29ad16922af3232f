/**
 * Development aid, not part of `npm run bench`: the accounts bench's cold token rows alone, with
 * server CPU per request. `profile` (bearer) and `validate_jwt_token` on Latchkey against the bare
 * routes verifying the same tokens, every request a token neither side has seen lately: 24,000
 * tokens of one session, each side going on through them in strict order (autocannon), as the
 * bench does.
 *
 *   npx tsx bench/profiling/cold-tokens.ts
 *
 * Environment: ALG (HS256, the default, or RS256 with a fresh 2048-bit key pair), R rounds (default 3), S seconds per run (4), HOT seconds of one-token traffic to
 * each side first (default 0; the bench's order: Latchkey answers it from its cache, the bare
 * route verifies), WARM seconds of one untimed round before the timed ones (default 0; the bench
 * warms for 10), LOGINS seconds of password logins (wrk, 8 in flight) that
 * Latchkey answers first (default 0; the bench's HS256 server has served its login rows before its
 * token rows; LOGIN_ACCOUNTS=64 spreads them over 64 other accounts, as the bench does), SIGNUPS
 * seconds of the bench's signup loop (16 in flight, unique emails) before the logins and the
 * token runs (default 0; the bench's HS256 server has signed up ~550 users by then),
 * BENCH_CPU_PROF=<dir> (every party writes a CPU profile there; cpuprofile-summary.ts reads it),
 * AGAINST=<another checkout of Latchkey, with node_modules or a link to them> (that checkout's
 * server, same flags, with its own user and tokens, goes through every phase beside this one and
 * the two take turns going first in the rounds: an A/B of two versions; compare the closing
 * means over the rounds, since this VM's speed drifts within a run, the bare route's by up to a
 * third). AGAINST_NODE_ARGS="--flag ..." gives the AGAINST server node flags of its own (AGAINST=.:
 * an A/B of node flags). AGAINST_HISTORY=0: the AGAINST server skips the SIGNUPS and LOGINS
 * phases (with AGAINST=., an A/B of a server with a login history against one without).
 *
 * Why not wrk: a wrk Lua script cycling through the same tokens saw Latchkey's verified-token
 * cache hit more and more (0%, 12%, 62% over three runs, counted in the server; cause not found,
 * a strict cycle gives ~0.2%), which made the cold rows look like 90-95% of bare.
 */
import { generateKeyPairSync } from 'node:crypto';
import { startCheckoutParty, startParty, type Party } from '../accounts/parties.js';
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
const loginAccounts = Number(process.env.LOGIN_ACCOUNTS ?? 1);
if (!Number.isInteger(loginAccounts) || loginAccounts < 1)
  throw new Error(`LOGIN_ACCOUNTS must be a whole number of 1 or more, not ${process.env.LOGIN_ACCOUNTS}`);
// AGAINST_HISTORY=0: the AGAINST server skips the signups and logins, so the two differ only in
// what they have served before the token rounds. Refused before any server starts when it could
// not mean that.
const againstHistoryFlag = process.env.AGAINST_HISTORY;
if (againstHistoryFlag !== undefined && againstHistoryFlag !== '0' && againstHistoryFlag !== '1')
  throw new Error(`AGAINST_HISTORY must be 0 or 1, not ${againstHistoryFlag}`);
if (againstHistoryFlag !== undefined && !process.env.AGAINST)
  throw new Error('AGAINST_HISTORY needs AGAINST (the server that skips or keeps the history)');
const againstHistory = againstHistoryFlag !== '0';

const alg = process.env.ALG ?? 'HS256';
if (alg !== 'HS256' && alg !== 'RS256') throw new Error(`ALG must be HS256 or RS256, not ${alg}`);
const rsa = alg === 'RS256' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : undefined;
const publicPem = rsa?.publicKey.export({ type: 'spki', format: 'pem' }).toString();
// With RS256 the secret stays as the key for encryption at rest.
const flags: Record<string, string | number> = {
  'rate-limit-per-minute': 0,
  'memory-store': 'database',
  'jwt-secret': SECRET,
  ...(rsa && publicPem
    ? {
        'jwt-type': 'RS256',
        'jwt-private-key': rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        'jwt-public-key': publicPem,
      }
    : {}),
};

/** A Latchkey server under test, with the cold user's tokens and its place in their cycle. */
interface Server {
  label: string;
  party: Party;
  tokens: string[];
  at: number;
}

/** The cold user signed up and more tokens minted than the verified-token cache holds. */
async function serverOf(label: string, party: Party): Promise<Server> {
  await postJson(
    `${party.url}/v1/signup`,
    { email: 'cold@example.com', password: PASSWORD, confirm_password: PASSWORD },
    { origin: party.origin },
  );
  return { label, party, tokens: await party.mint(VERIFIED_CACHE_MAX + 4000, 'cold@example.com'), at: 0 };
}
const nextToken = (server: Server): string => server.tokens[server.at++ % server.tokens.length];

// AGAINST=<another checkout>: that checkout's server, same flags, its own user and tokens, goes
// through every phase below beside this one (in the rounds the two take turns going first).
// Started first, so a checkout that is refused leaves no server of this one running.
// AGAINST_NODE_ARGS="--flag ...": node flags for the AGAINST server alone (with AGAINST=., an A/B of node flags).
const againstNodeArgs = (process.env.AGAINST_NODE_ARGS ?? '').split(' ').filter(Boolean);
const againstParty = process.env.AGAINST
  ? await startCheckoutParty(process.env.AGAINST, flags, againstNodeArgs)
  : undefined;
const latchkey = await serverOf('latchkey', await startParty({ kind: 'latchkey', flags }));
const servers = [latchkey];
if (againstParty) servers.push(await serverOf('AGAINST', againstParty));
const bare = await startParty(
  alg === 'RS256'
    ? { kind: 'bare', alg, publicPem, issuer: latchkey.party.origin }
    : { kind: 'bare', alg, secret: SECRET, issuer: latchkey.party.origin },
);
let bareAt = 0;
// The bare route verifies this server's tokens (its issuer is this server's --url).
const nextForBare = () => latchkey.tokens[bareAt++ % latchkey.tokens.length];

for (const server of servers) {
  if (server !== latchkey && !againstHistory) continue;
  const { label, party } = server;
  if (signupSeconds > 0) {
    // As the bench's HS256 server has: a signup loop (16 in flight, unique emails) before its logins.
    let n = 0;
    const r = await closedLoop(
      () =>
        postJson(
          `${party.url}/v1/signup`,
          { email: `s${n++}@example.com`, password: PASSWORD, confirm_password: PASSWORD },
          { origin: party.origin },
        ),
      16,
      signupSeconds,
    );
    console.log(`${label}: signups first: ${Math.round(r.rps * signupSeconds)} in ${signupSeconds} s`);
  }
  if (loginSeconds > 0) {
    // LOGIN_ACCOUNTS > 1: the logins go over that many other accounts in turn, as the bench's
    // login row does (its cold rows' user is not one of them).
    const bodies =
      loginAccounts > 1
        ? await Promise.all(
            Array.from({ length: loginAccounts }, async (_, i) => {
              const email = `login${i}@example.com`;
              await postJson(
                `${party.url}/v1/signup`,
                { email, password: PASSWORD, confirm_password: PASSWORD },
                { origin: party.origin },
              );
              return JSON.stringify({ email, password: PASSWORD });
            }),
          )
        : [JSON.stringify({ email: 'cold@example.com', password: PASSWORD })];
    const r = await wrkLoad({
      url: `${party.url}/v1/login`,
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: party.origin },
      bodies,
      connections: 8,
      durationS: loginSeconds,
    });
    if (!r) throw new Error('LOGINS needs wrk (apt-get install wrk)');
    // A refused login is cheap and would not be the work this phase stands for.
    if (r.errors > 0) throw new Error(`LOGINS: ${r.errors} logins failed`);
    console.log(`${label}: logins first: ${Math.round(r.rps * loginSeconds)} in ${loginSeconds} s`);
  }
}

/** Timed runs' CPU per request by label, for the closing means. */
const timed = new Map<string, number[]>();

async function measure(
  party: Party,
  label: string,
  load: () => ReturnType<typeof httpRun>,
  keep = false,
): Promise<void> {
  const before = procCpuSeconds(party.pid);
  const t0 = performance.now();
  const result = await load();
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = procCpuSeconds(party.pid) - before;
  const perRequest = (cpu * 1e6) / (result.rps * elapsed);
  if (keep) timed.set(label, [...(timed.get(label) ?? []), perRequest]);
  console.log(
    label.padEnd(22),
    `${Math.round(result.rps)} req/s`.padEnd(14),
    `${perRequest.toFixed(1)} µs/req`,
    result.errors ? `(${result.errors} errors)` : '',
  );
}

const post = { 'content-type': 'application/json' };
const bareBase = bare.url.replace(/\/verify$/, '');
const profileRun = (server: Server, s: number) => () =>
  httpRun({
    url: `${server.party.url}/v1/profile`,
    durationS: s,
    vary: () => ({ headers: { authorization: `Bearer ${nextToken(server)}` } }),
  });
const validateRun = (server: Server, s: number) => () =>
  httpRun({
    url: `${server.party.url}/v1/validate_jwt_token`,
    method: 'POST',
    headers: { ...post, origin: server.party.origin },
    durationS: s,
    vary: () => ({ body: JSON.stringify({ token_type: 'access_token', token: nextToken(server) }) }),
  });

/**
 * One round: the bare GET, each server's profile, the bare POST, each server's validate, `s`
 * seconds each; `tag` marks untimed ones in the output. With AGAINST, the servers take turns
 * going first from round to round (the warm-up round counts).
 */
let roundNo = 0;
async function round(s: number, tag = ''): Promise<void> {
  const keep = tag === '';
  const order = roundNo++ % 2 === 0 ? servers : [...servers].reverse();
  await measure(
    bare,
    `bare GET${tag}`,
    () =>
      httpRun({
        url: `${bareBase}/verify`,
        durationS: s,
        vary: () => ({ headers: { authorization: `Bearer ${nextForBare()}` } }),
      }),
    keep,
  );
  for (const server of order) await measure(server.party, `${server.label} profile${tag}`, profileRun(server, s), keep);
  await measure(
    bare,
    `bare POST${tag}`,
    () =>
      httpRun({
        url: `${bareBase}/validate`,
        method: 'POST',
        headers: post,
        durationS: s,
        vary: () => ({ body: JSON.stringify({ token_type: 'access_token', token: nextForBare() }) }),
      }),
    keep,
  );
  for (const server of order)
    await measure(server.party, `${server.label} validate${tag}`, validateRun(server, s), keep);
}
if (hotSeconds > 0) {
  // As the bench runs its one-token rows first: Latchkey answers them from its cache, the bare
  // route verifies each one. A token of its own: one of the cycle's, cached here, would be a hit
  // in every pass of the cold rounds.
  const [one] = await latchkey.party.mint(1, 'cold@example.com');
  await measure(bare, 'bare GET (one token)', () =>
    httpRun({ url: `${bareBase}/verify`, durationS: hotSeconds, headers: { authorization: `Bearer ${one}` } }),
  );
  for (const server of servers) {
    const [own] = server === latchkey ? [one] : await server.party.mint(1, 'cold@example.com');
    await measure(server.party, `${server.label} profile (one token)`, () =>
      httpRun({
        url: `${server.party.url}/v1/profile`,
        durationS: hotSeconds,
        headers: { authorization: `Bearer ${own}` },
      }),
    );
  }
}
if (warmSeconds > 0) await round(warmSeconds, ' (warm-up)');
// This checkout's server counts its cache hits (an AGAINST checkout may not answer the question).
const statsBefore = await latchkey.party.cacheStats();
for (let r = 0; r < rounds; r++) await round(seconds);
const statsAfter = await latchkey.party.cacheStats();
const hits = statsAfter.hits - statsBefore.hits;
console.log(
  `latchkey: ${hits} of ${hits + statsAfter.misses - statsBefore.misses} token checks in the timed rounds were verified-token cache hits`,
);
if (rounds > 1)
  for (const [label, runs] of timed)
    console.log(
      `mean ${label}`.padEnd(27),
      `${(runs.reduce((a, b) => a + b, 0) / runs.length).toFixed(1)} µs/req over ${runs.length} rounds`,
    );
for (const server of servers) await server.party.close();
await bare.close();
