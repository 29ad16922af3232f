/**
 * Accounts section: signup, login, `validate_jwt_token` and `profile` (bearer) through
 * the real server, beside references measured in the same run.
 *
 * How it is measured, and why (the machine has 2 cores shared with other work):
 * - Every measured party runs in its own child process (child.ts): each Latchkey server, each bare
 *   Fastify verifier, the raw Argon2id loop and the better-auth peer. The load generators
 *   (autocannon, a fetch loop for signup, wrk or an undici loop for login) run outside the
 *   measured processes, for every HTTP party alike, so a subject and its
 *   reference share the machine with the same client in the same way (a client inside the
 *   server's process would take event-loop time from CPU-bound servers).
 * - validate_jwt_token and profile send the same token over and over, as a client does during
 *   its token's life. Latchkey keeps verified tokens from their second use (plugins/tokens/service.ts) and
 *   still looks the session up on every request; the bare route verifies the signature on every
 *   request. The "cold" rows (HS256) send a different token on every request, cycling through
 *   more distinct tokens than the cache holds, so both sides pay a full verification each time.
 *   (The server counts it: the cold rows' note gives the share of their token
 *   checks the cache answered, TokensService.verifiedCacheStats; ~0.2% is the fingerprint
 *   collisions of second-sighting.ts.)
 * - References: `profile` (GET, bearer header) is compared with a bare GET route reading the
 *   bearer header; `validate_jwt_token` (POST, token in a JSON body) with a bare POST route
 *   reading the token from a JSON body, the same request shape (its ratio to the GET route is in
 *   the note: a POST body costs the client and Node's HTTP parser more than a header).
 * - A subject and its reference are measured interleaved, BENCH_ROUNDS times (default 2) for
 *   BENCH_RUN_SECONDS (default 4) each (logins: BENCH_LOGIN_ROUNDS of BENCH_LOGIN_RUN_SECONDS,
 *   default 6 of 6 s), and the mean
 *   is reported, so a burst of background load lands on both sides. The token rows take more and
 *   shorter rounds (TOKEN_ROUNDS below). Every other round goes in reverse order (parties.ts
 *   interleaved), so the defaults are even: a drift over the rounds then lands
 *   on every run alike. Each row's note gives the machine's steal share while it ran (the CPU time
 *   the hypervisor gave other guests), which on a shared VM moves widely from one 2 s sample to the
 *   next.
 * - The password-hash ceiling is the raw Argon2id verification with the production parameters
 *   (plugins/users/password.ts) in its own process, the best of three ways to run it: one hash
 *   per core in flight and 8 in flight, both through the async call on libuv's pool, and one
 *   worker thread per core verifying back to back with no event loop between hashes (the server
 *   hashes on worker threads of its own, one per core, so a ceiling that paid a round trip per
 *   hash could be beaten): the most logins/s this machine can do if a login cost nothing but its
 *   hash. Besides its hashes a login needs the server's event loop for HTTP, the user lookup, two
 *   JWT signatures, the session write and the cookie; that share, plus the client's CPU on the
 *   same cores, keeps login below the ceiling.
 * - Logins are driven by a closed loop, 8 in flight, counted like the ceiling (loginLoad): from
 *   wrk (native, its own process) when it is installed, else from a keep-alive undici Pool in this
 *   process. The client's CPU is not small (0.5-0.9 ms per login through `Pool.request`, more
 *   through `fetch`) and runs on the same cores as the hashes, so the cheapest client keeps the
 *   row closest to what the server itself costs; the peer's sign-ins use the same client, and the
 *   row's note names it.
 * - The peer is better-auth (npm, email and password on SQLite, defaults: scrypt N=16384 r=16
 *   p=1, i.e. 32 MiB per hash), installed on first use in bench/peers/better-auth. Its raw scrypt
 *   cost is measured as well, so the table shows what each side pays per login.
 * - The login floor: a plain Fastify route in its own process that verifies the same password on
 *   the server's own hash workers, writes per turn as Latchkey does and does nothing else
 *   (child.ts, bareLogin). It shows what the machine leaves any Node server with this hash pool,
 *   measured in the same rounds as the login row.
 * - Warm-up: before the timed login rounds the floor, Latchkey and the peer each answer
 *   BENCH_LOGIN_WARM_SECONDS (default 60) of logins. At ~100-200 logins/s the login path takes
 *   tens of seconds to reach V8's optimizing tier (the main thread's CPU per login falls for ~50 s
 *   before it is flat), and a server runs far longer than that, so the rows show the steady
 *   state; the raw hash is native code and needs none.
 * - Latchkey writes the responses finished in one event-loop turn together at its end
 *   (transports/http/held-responses.ts); the bare routes write each as its handler ends, as plain
 *   Fastify does.
 * Measured results and what each fast path buys: docs/performance.md; per-thread CPU and
 * instruction counts: bench/profiling/.
 * Floors: cold validate_jwt_token and profile (HS256 and RS256) >= 70% of the bare verify route
 * with the same algorithm; login >= 80% of the hash ceiling and >= 5x the peer's sign-in rate.
 * CPU profiles of every child: BENCH_CPU_PROF=<dir> (node --cpu-prof).
 */
import { generateKeyPairSync, randomBytes, scrypt } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { jwtVerify, SignJWT } from 'jose';
import { Pool } from 'undici';
import { VERIFIED_CACHE_MAX } from '../../plugins/tokens/service.js';
import { hashPassword, PRODUCTION_PARAMS } from '../../plugins/users/password.js';
import { closedLoop, wrkLoad, type LoadResult } from '../load.js';
import { printTable, type Row } from '../table.js';
import { httpRun, postJson } from './http.js';
import { interleaved, roundRatioSpread, startParty, withServerCpu, type Party } from './parties.js';
import { startPeer } from './peer.js';

const S = 'accounts';
const PASSWORD = 'Bench-pass-1';
const RUN_S = Number(process.env.BENCH_RUN_SECONDS ?? 4);
const CORES = availableParallelism();
/** In flight for logins: the same as the ceiling's larger setting. */
const LOGIN_IN_FLIGHT = 8;
const LOGIN_ROUNDS = Number(process.env.BENCH_LOGIN_ROUNDS ?? 6);
/** Seconds per login round: longer than the other rows' (the login rows were the noisiest at 4 s). */
const LOGIN_RUN_S = Number(process.env.BENCH_LOGIN_RUN_SECONDS ?? 6);
/**
 * Accounts the login rows take in turn, one per request: a server's logins
 * come from many users, and the per-account password-check gate (users/hash-gate.ts) holds any
 * one account to 5 checks at once, so eight logins in flight on one account measure the gate, not
 * the login path. The one-account load is still shown, without a target.
 */
const LOGIN_ACCOUNTS = Number(process.env.BENCH_LOGIN_ACCOUNTS ?? 64);
/** Seconds of logins each login party answers before the timed rounds (see the header). */
const LOGIN_WARM_S = Number(process.env.BENCH_LOGIN_WARM_SECONDS ?? 60);
const CEILING = `raw Argon2id verify (m=${Math.round(PRODUCTION_PARAMS.memoryCost / 1024)}MiB,t=${PRODUCTION_PARAMS.timeCost},p=${PRODUCTION_PARAMS.parallelism})`;
const FLOOR = 'login floor: bare route + hash workers';
const pct = (x: number, digits = 0) => `${(x * 100).toFixed(digits)}%`;
/** `rounds 72-95%` for a target row's note: its per-round ratios to the reference (parties.ts roundRatioSpread). */
const rounds = (subject: LoadResult, reference: LoadResult) => {
  const spread = roundRatioSpread(subject, reference);
  return spread ? `rounds ${(spread.min * 100).toFixed(0)}-${pct(spread.max)}` : 'no rounds';
};
const note = (r: LoadResult, extra = '') =>
  `p99 ${r.p99ms.toFixed(1)} ms${r.cpuUs !== undefined ? `, server CPU ${r.cpuUs.toFixed(0)} µs/req` : ''}${r.stealShare !== undefined ? `, steal ${pct(r.stealShare)}` : ''}${r.errors ? `, ${r.errors} errors` : ''}${extra ? `, ${extra}` : ''}`;

const SECRET = 'bench-secret-bench-secret-bench-secret-0123';
/**
 * The binary's own default memory store (`database`: sessions in the SQLite file), not the test
 * helper's in-process one, so every profile and validate_jwt_token reads its session from SQLite
 * as a default deployment does (rows labelled SQLite must not run with sessions in a Map).
 */
const BASE_FLAGS = { 'rate-limit-per-minute': 0, 'memory-store': 'database' };
/**
 * Token rows: BENCH_TOKEN_ROUNDS interleaved rounds (default 6: even, for the reversed rounds) of
 * BENCH_TOKEN_RUN_SECONDS (3) each. A shared VM's speed drifts within minutes (the bare HS256
 * route alone can cost 48 to 86 µs of CPU per request in 4 s runs a few seconds apart); more,
 * shorter rounds let a drift fall on both sides of a comparison instead of on one.
 */
const TOKEN_ROUNDS = Number(process.env.BENCH_TOKEN_ROUNDS ?? 6);
const TOKEN_RUN_S = Number(process.env.BENCH_TOKEN_RUN_SECONDS ?? 3);
/**
 * Seconds of each token run's own traffic every party answers, untimed, before its timed rounds
 * Why: the one-token rows are answered from Latchkey's verified-token cache,
 * so its signature check first runs in the cold rows, cold, while the bare route has verified
 * every request of the one-token rows and is warm (bench/profiling/cold-tokens.ts HOT=6 shows
 * Latchkey's CPU per cold request falling over its first rounds while the bare route's stays
 * flat). A server verifies new tokens all day, so the rows show the steady state, as the login
 * rows do; both sides get the same warm-up.
 */
const TOKEN_WARM_S = Number(process.env.BENCH_TOKEN_WARM_SECONDS ?? 10);
/** More than the verified-token cache holds (VERIFIED_CACHE_MAX), so cycling through them always misses. */
const COLD_TOKENS = VERIFIED_CACHE_MAX + 4_000;
/** The most of a cold row's token checks the cache may answer for the row to count as cold. */
const COLD_HIT_SHARE_MAX = 0.01;

/**
 * The client that drives logins and the peer's sign-ins: wrk (native, its own process) when it
 * is installed, else a keep-alive undici Pool in this process. BENCH_LOGIN_CLIENT=undici forces
 * the Pool. Why it matters: the client runs on the same two cores as the hashes, and every
 * millisecond of its CPU per login is taken from them (the header comment has the numbers).
 */
const LOGIN_CLIENT: 'wrk' | 'undici' = process.env.BENCH_LOGIN_CLIENT === 'undici' ? 'undici' : 'wrk';

/**
 * Logins (and the peer's sign-ins): a closed loop with LOGIN_IN_FLIGHT requests in flight, as the
 * ceiling is run. With wrk, completed requests over the run (the last ones in flight are not
 * counted: about 1% of a run, against the server). With the Pool, every completed call over the
 * elapsed time including the last ones (autocannon's per-second average would leave out whatever
 * is still in flight when the run ends: ~8% of a 4 s run at 32 connections).
 */
let loginClientUsed = '';

async function loginLoad(
  url: string,
  bodies: readonly string[],
  headers: Record<string, string>,
  durationS = LOGIN_RUN_S,
): Promise<LoadResult> {
  if (LOGIN_CLIENT === 'wrk') {
    const r = await wrkLoad({
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      bodies,
      connections: LOGIN_IN_FLIGHT,
      durationS,
    });
    loginClientUsed = r ? 'wrk' : 'undici Pool (wrk not installed)';
    if (r) return r;
  } else loginClientUsed = 'undici Pool';
  const { origin, pathname } = new URL(url);
  const pool = new Pool(origin, { connections: LOGIN_IN_FLIGHT });
  let turn = 0;
  try {
    return await closedLoop(
      async () => {
        const body = bodies[turn++ % bodies.length];
        const res = await pool.request({
          path: pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body,
        });
        await res.body.arrayBuffer();
        if (res.statusCode !== 200) throw new Error(`login ${res.statusCode}`);
      },
      LOGIN_IN_FLIGHT,
      durationS,
    );
  } finally {
    await pool.close();
  }
}

/** The signup closed loop (unique emails), from this process; `created` counts the accounts it made. */
async function signupLoad(
  url: string,
  headers: Record<string, string>,
  body: (i: number) => unknown,
): Promise<LoadResult & { created: number }> {
  let n = 0;
  let created = 0;
  const r = await closedLoop(
    async () => {
      await postJson(url, body(n++), headers);
      created++;
    },
    16,
    RUN_S,
  );
  return { ...r, created };
}

/** Signs up `bench<i>@example.com` for every i below `count` the signup rows did not reach. */
async function signUpTo(count: number, made: number, signUp: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = made; i < count; i++) await signUp(i);
}

/** Each run once for TOKEN_WARM_S, untimed, then TOKEN_ROUNDS interleaved rounds of TOKEN_RUN_S. */
async function warmThenInterleaved(runs: ((seconds: number) => Promise<LoadResult>)[]): Promise<LoadResult[]> {
  if (TOKEN_WARM_S > 0) for (const run of runs) await run(TOKEN_WARM_S);
  return interleaved(
    runs.map((run) => () => run(TOKEN_RUN_S)),
    TOKEN_ROUNDS,
  );
}

async function tokenRows(alg: 'HS256' | 'RS256', server: Party, bare: Party, rows: Row[]): Promise<void> {
  const headers = { origin: server.origin };
  await postJson(
    `${server.url}/v1/signup`,
    { email: 'tok@example.com', password: PASSWORD, confirm_password: PASSWORD },
    headers,
  );
  const login = await postJson(`${server.url}/v1/login`, { email: 'tok@example.com', password: PASSWORD }, headers);
  const token = String(login.access_token);
  const auth = { authorization: `Bearer ${token}` };
  const vjtBody = JSON.stringify({ token_type: 'access_token', token });
  const post = { 'content-type': 'application/json', ...headers };
  const bareValidate = bare.url.replace(/\/verify$/, '/validate');
  // Each party answers as it should before it is timed: a 200 that says is_valid:false would
  // count as throughput.
  const probe = await postJson(`${server.url}/v1/validate_jwt_token`, { token_type: 'access_token', token }, headers);
  if (probe.is_valid !== true) throw new Error(`validate_jwt_token ${alg}: the bench token is not valid`);
  // Each subject next to its reference (interleaved keeps neighbours neighbours in both orders).
  const [ref, profile, refPost, vjt] = await warmThenInterleaved([
    (s) => withServerCpu(bare, s, () => httpRun({ url: bare.url, headers: auth, durationS: s })),
    (s) => withServerCpu(server, s, () => httpRun({ url: `${server.url}/v1/profile`, headers: auth, durationS: s })),
    (s) =>
      withServerCpu(bare, s, () =>
        httpRun({ url: bareValidate, method: 'POST', headers: post, body: vjtBody, durationS: s }),
      ),
    (s) =>
      withServerCpu(server, s, () =>
        httpRun({
          url: `${server.url}/v1/validate_jwt_token`,
          method: 'POST',
          headers: post,
          body: vjtBody,
          durationS: s,
        }),
      ),
  ]);
  const refName = `bare Fastify verify ${alg} (GET, bearer)`;
  const refPostName = `bare Fastify verify ${alg} (POST, JSON body)`;
  rows.push({ section: S, name: refName, value: ref.rps, unit: 'req/s', note: note(ref) });
  rows.push({ section: S, name: refPostName, value: refPost.rps, unit: 'req/s', note: note(refPost) });
  // One token over and over: Latchkey answers from its verified-token cache (no signature check),
  // the bare route verifies every time; shown, but the target is judged on the cold rows below.
  rows.push({
    section: S,
    name: `validate_jwt_token ${alg}, one token`,
    value: vjt.rps,
    unit: 'req/s',
    reference: refPostName,
    ratio: vjt.rps / refPost.rps,
    note: note(vjt, `cache hits, no target; ${pct(vjt.rps / ref.rps)} of the GET route`),
  });
  rows.push({
    section: S,
    name: `profile (bearer) ${alg}, one token`,
    value: profile.rps,
    unit: 'req/s',
    reference: refName,
    ratio: profile.rps / ref.rps,
    note: note(profile, 'cache hits, no target'),
  });

  // Cold: a different token on every request, both sides verifying every one (floor 70%). The
  // tokens outnumber the verified-token cache and each server's sequence goes on from run to run
  // (one position per server, shared by its two operations), so the cache, least recently used
  // first, never holds the next token: run after run, every request is a miss. (A sequence
  // restarting at 0 each run would find the previous run's tokens still cached.)
  const many = await server.mint(COLD_TOKENS, 'tok@example.com');
  for (const t of [many[0], many[many.length - 1]]) {
    if (
      (await postJson(`${server.url}/v1/validate_jwt_token`, { token_type: 'access_token', token: t }, headers))
        .is_valid !== true
    )
      throw new Error(`${alg}: a minted token is not valid`);
  }
  let serverAt = 0;
  let bareAt = 0;
  const nextForServer = () => many[serverAt++ % many.length];
  const nextForBare = () => many[bareAt++ % many.length];
  const statsBefore = await server.cacheStats();
  const [coldRef, coldProfile, coldRefPost, coldVjt] = await warmThenInterleaved([
    (s) =>
      withServerCpu(bare, s, () =>
        httpRun({
          url: bare.url,
          durationS: s,
          vary: () => ({ headers: { authorization: `Bearer ${nextForBare()}` } }),
        }),
      ),
    (s) =>
      withServerCpu(server, s, () =>
        httpRun({
          url: `${server.url}/v1/profile`,
          durationS: s,
          vary: () => ({ headers: { authorization: `Bearer ${nextForServer()}` } }),
        }),
      ),
    (s) =>
      withServerCpu(bare, s, () =>
        httpRun({
          url: bareValidate,
          method: 'POST',
          headers: post,
          durationS: s,
          vary: () => ({ body: JSON.stringify({ token_type: 'access_token', token: nextForBare() }) }),
        }),
      ),
    (s) =>
      withServerCpu(server, s, () =>
        httpRun({
          url: `${server.url}/v1/validate_jwt_token`,
          method: 'POST',
          headers: post,
          durationS: s,
          vary: () => ({ body: JSON.stringify({ token_type: 'access_token', token: nextForServer() }) }),
        }),
      ),
  ]);
  // Counted in the server, not assumed: the share of the cold rounds' token checks (warm-up
  // included) that the verified-token cache answered.
  const statsAfter = await server.cacheStats();
  const coldHits = statsAfter.hits - statsBefore.hits;
  const coldChecks = coldHits + statsAfter.misses - statsBefore.misses;
  const hitShare = coldHits / Math.max(1, coldChecks);
  // Fingerprint collisions admit ~0.2% (second-sighting.ts); much more means the row measured hits.
  const coldNote = (subject: LoadResult, reference: LoadResult) =>
    `${hitShare > COLD_HIT_SHARE_MAX ? 'NOT COLD, no target; ' : `floor 70%, ${rounds(subject, reference)}; `}${coldHits} of ${coldChecks} token checks were cache hits (${pct(hitShare, 2)}, counted in the server)`;
  const coldName = `${refName}, distinct tokens`;
  const coldPostName = `${refPostName}, distinct tokens`;
  rows.push({
    section: S,
    name: coldName,
    value: coldRef.rps,
    unit: 'req/s',
    note: note(coldRef, `${COLD_TOKENS} tokens in turn`),
  });
  rows.push({
    section: S,
    name: coldPostName,
    value: coldRefPost.rps,
    unit: 'req/s',
    note: note(coldRefPost, `${COLD_TOKENS} tokens in turn`),
  });
  rows.push({
    section: S,
    name: `validate_jwt_token ${alg}, cold`,
    value: coldVjt.rps,
    unit: 'req/s',
    reference: coldPostName,
    ratio: coldVjt.rps / coldRefPost.rps,
    note: note(coldVjt, coldNote(coldVjt, coldRefPost)),
  });
  rows.push({
    section: S,
    name: `profile (bearer) ${alg}, cold`,
    value: coldProfile.rps,
    unit: 'req/s',
    reference: coldName,
    ratio: coldProfile.rps / coldRef.rps,
    note: note(coldProfile, coldNote(coldProfile, coldRef)),
  });
}

/** better-auth's default hash (node:crypto scrypt, N=16384 r=16 p=1, 64-byte key) in this process. */
function peerScrypt(password: string, salt: string): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, 64, { N: 16384, r: 16, p: 1, maxmem: 128 * 16384 * 16 * 2 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function runAccountsBench(): Promise<Row[]> {
  const rows: Row[] = [];

  // Raw jose sign/verify (in this process: no HTTP involved).
  const secret = new TextEncoder().encode(SECRET);
  const hsToken = await new SignJWT({ sub: 'x' })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('i')
    .setExpirationTime('1h')
    .sign(secret);
  const hsSign = await closedLoop(
    () => new SignJWT({ sub: 'x' }).setProtectedHeader({ alg: 'HS256' }).sign(secret),
    8,
    2,
  );
  rows.push({ section: S, name: 'raw jose sign HS256', value: hsSign.rps, unit: 'ops/s', note: note(hsSign) });
  const hsVerify = await closedLoop(() => jwtVerify(hsToken, secret), 8, 2);
  rows.push({ section: S, name: 'raw jose verify HS256', value: hsVerify.rps, unit: 'ops/s', note: note(hsVerify) });

  const stored = await hashPassword(PASSWORD, PRODUCTION_PARAMS);
  const ceiling = await startParty({ kind: 'argon2', stored, password: PASSWORD, concurrency: CORES });
  const hs = await startParty({ kind: 'latchkey', flags: { ...BASE_FLAGS, 'jwt-secret': SECRET } });
  let peer: Party | undefined;
  let floor: Party | undefined;
  let peerError = '';
  try {
    peer = await startPeer();
  } catch (err) {
    peerError = (err as Error).message.split('\n')[0].slice(0, 160);
  }
  try {
    const headers = { origin: hs.origin };
    const signup = await signupLoad(`${hs.url}/v1/signup`, headers, (i) => ({
      email: `bench${i}@example.com`,
      password: PASSWORD,
      confirm_password: PASSWORD,
    }));
    rows.push({
      section: S,
      name: 'signup (REST, SQLite)',
      value: signup.rps,
      unit: 'req/s',
      reference: CEILING,
      note: note(signup, 'hash + insert; no target'),
    });
    let peerSignup: (LoadResult & { created: number }) | undefined;
    if (peer) {
      const p = peer;
      peerSignup = await signupLoad(`${p.url}/api/auth/sign-up/email`, { origin: p.origin }, (i) => ({
        email: `bench${i}@example.com`,
        password: PASSWORD,
        name: `Bench ${i}`,
      }));
    }

    // The login rows' accounts: the signups made most of them; any they did not reach are made here.
    const emailOf = (i: number) => `bench${i}@example.com`;
    await signUpTo(LOGIN_ACCOUNTS, signup.created, (i) =>
      postJson(`${hs.url}/v1/signup`, { email: emailOf(i), password: PASSWORD, confirm_password: PASSWORD }, headers),
    );
    if (peer && peerSignup) {
      const p = peer;
      await signUpTo(LOGIN_ACCOUNTS, peerSignup.created, (i) =>
        postJson(
          `${p.url}/api/auth/sign-up/email`,
          { email: emailOf(i), password: PASSWORD, name: `Bench ${i}` },
          { origin: p.origin },
        ),
      );
    }
    const loginBodies = Array.from({ length: LOGIN_ACCOUNTS }, (_, i) =>
      JSON.stringify({ email: emailOf(i), password: PASSWORD }),
    );
    const oneAccount = [loginBodies[0]];
    // One sign-in on each side, with the first and the last account, before timing: a refusal
    // (CSRF, rate limit, bad credentials) is fast and would count as throughput if it only showed
    // up under load.
    let answer: Record<string, unknown> = {};
    for (const body of [loginBodies[0], loginBodies[LOGIN_ACCOUNTS - 1]]) {
      answer = await postJson(`${hs.url}/v1/login`, JSON.parse(body), headers);
      if (peer) await postJson(`${peer.url}/api/auth/sign-in/email`, JSON.parse(body), { origin: peer.origin });
    }
    // The floor answers with a login response of the same size, and checks the same password.
    floor = await startParty({ kind: 'bare-login', stored, body: JSON.stringify(answer) });
    const f = floor;
    await postJson(f.url, JSON.parse(loginBodies[0]));
    const runs: (() => Promise<LoadResult>)[] = [
      () => ceiling.run(LOGIN_RUN_S, CORES),
      () => ceiling.run(LOGIN_RUN_S, 8),
      () => ceiling.run(LOGIN_RUN_S, CORES, true),
      () => loginLoad(f.url, loginBodies, {}),
      () => loginLoad(`${hs.url}/v1/login`, loginBodies, headers),
      () => loginLoad(`${hs.url}/v1/login`, oneAccount, headers),
    ];
    if (peer) {
      const p = peer;
      runs.push(() => loginLoad(`${p.url}/api/auth/sign-in/email`, loginBodies, { origin: p.origin }));
    }
    // Steady state before timing: every HTTP party answers logins for LOGIN_WARM_S first (the
    // raw hash is native code and needs none). See the header: without it the first rounds
    // measured V8 still compiling the login path.
    if (LOGIN_WARM_S > 0) {
      await loginLoad(f.url, loginBodies, {}, LOGIN_WARM_S);
      await loginLoad(`${hs.url}/v1/login`, loginBodies, headers, LOGIN_WARM_S);
      if (peer)
        await loginLoad(`${peer.url}/api/auth/sign-in/email`, loginBodies, { origin: peer.origin }, LOGIN_WARM_S);
    }
    const [atCores, at8, onThreads, floorLogin, login, loginOne, peerLogin] = await interleaved(runs, LOGIN_ROUNDS);
    // The ceiling is the best of the three ways of running the raw hash.
    const hashRef = [atCores, at8, onThreads].reduce((best, r) => (r.rps > best.rps ? r : best));
    rows.splice(
      2,
      0,
      {
        section: S,
        name: CEILING,
        value: hashRef.rps,
        unit: 'ops/s',
        note: note(hashRef, `ceiling: best of ${CORES} and 8 in flight and ${CORES} threads, own process`),
      },
      { section: S, name: `  same, ${CORES} in flight`, value: atCores.rps, unit: 'ops/s', note: note(atCores) },
      { section: S, name: '  same, 8 in flight', value: at8.rps, unit: 'ops/s', note: note(at8) },
      {
        section: S,
        name: `  same, ${CORES} threads back to back`,
        value: onThreads.rps,
        unit: 'ops/s',
        note: note(onThreads, 'verifySync in worker threads, no event loop between hashes'),
      },
    );
    const signupRow = rows.find((r) => r.name === 'signup (REST, SQLite)');
    if (signupRow) signupRow.ratio = signup.rps / hashRef.rps;
    rows.push({
      section: S,
      name: FLOOR,
      value: floorLogin.rps,
      unit: 'req/s',
      reference: CEILING,
      ratio: floorLogin.rps / hashRef.rps,
      note: note(
        floorLogin,
        "bare Fastify POST over the server's hash workers and write batching, nothing else; no target",
      ),
    });
    rows.push({
      section: S,
      name: 'login (REST, SQLite)',
      value: login.rps,
      unit: 'req/s',
      reference: CEILING,
      ratio: login.rps / hashRef.rps,
      note: note(
        login,
        `${LOGIN_IN_FLIGHT} in flight over ${LOGIN_ACCOUNTS} accounts from ${loginClientUsed}, floor 80%, ${rounds(login, hashRef)}; ${pct(login.rps / floorLogin.rps)} of the floor`,
      ),
    });
    rows.push({
      section: S,
      name: '  same, one account',
      value: loginOne.rps,
      unit: 'req/s',
      reference: CEILING,
      ratio: loginOne.rps / hashRef.rps,
      note: note(
        loginOne,
        `${LOGIN_IN_FLIGHT} in flight on one account, which the password-check gate holds to 5 at once; no target`,
      ),
    });

    if (peer && peerSignup && peerLogin) {
      rows.push({
        section: S,
        name: 'peer better-auth sign-up',
        value: peerSignup.rps,
        unit: 'req/s',
        note: note(peerSignup, 'SQLite, scrypt N=16384 r=16'),
      });
      rows.push({
        section: S,
        name: 'peer better-auth sign-in',
        value: peerLogin.rps,
        unit: 'req/s',
        note: note(peerLogin, `${LOGIN_IN_FLIGHT} in flight over ${LOGIN_ACCOUNTS} accounts from ${loginClientUsed}`),
      });
      // A peer that completed no sign-in in its rounds (a loaded machine) gives no ratio, not Infinity.
      rows.push(
        peerLogin.rps > 0
          ? {
              section: S,
              name: 'login vs peer sign-in',
              value: login.rps / peerLogin.rps,
              unit: 'x',
              reference: 'peer better-auth sign-in',
              ratio: login.rps / peerLogin.rps,
              note: 'floor >= 5x',
            }
          : {
              section: S,
              name: 'login vs peer sign-in',
              value: 0,
              unit: '-',
              note: 'not measured: the peer completed no sign-in in its rounds; floor >= 5x',
            },
      );
      const salt = randomBytes(16).toString('hex');
      const sc = await closedLoop(() => peerScrypt(PASSWORD, salt), 8, RUN_S);
      rows.push({
        section: S,
        name: 'raw scrypt (peer default, 32 MiB)',
        value: sc.rps,
        unit: 'ops/s',
        reference: CEILING,
        ratio: sc.rps / hashRef.rps,
        note: note(sc, 'what the peer pays per sign-in'),
      });
    } else {
      rows.push({
        section: S,
        name: 'peer better-auth sign-in',
        value: 0,
        unit: '-',
        note: `not measured: ${peerError}`,
      });
    }
  } finally {
    await Promise.all([ceiling.close(), peer?.close(), floor?.close()]);
  }

  // Token paths, HS256 then RS256; each server next to a bare verifier with the same key.
  const hsBare = await startParty({ kind: 'bare', alg: 'HS256', secret: SECRET, issuer: hs.origin });
  try {
    await tokenRows('HS256', hs, hsBare, rows);
  } finally {
    await Promise.all([hs.close(), hsBare.close()]);
  }
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const rs = await startParty({
    kind: 'latchkey',
    flags: {
      ...BASE_FLAGS,
      'jwt-type': 'RS256',
      'jwt-secret': undefined,
      'jwt-private-key': privatePem,
      'jwt-public-key': publicPem,
      'encryption-key': 'bench-encryption-key-0123456789abcdef',
    },
  });
  const rsBare = await startParty({ kind: 'bare', alg: 'RS256', publicPem, issuer: rs.origin });
  try {
    await tokenRows('RS256', rs, rsBare, rows);
  } finally {
    await Promise.all([rs.close(), rsBare.close()]);
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) printTable(await runAccountsBench());
