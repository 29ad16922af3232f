/**
 * Development aid, not part of `npm run bench`: machine instructions per request on a server's
 * main thread, counted by valgrind's callgrind, for the cold HS256 `profile` row (or
 * `validate_jwt_token`) and the bare route, or for password logins and the login floor. Why: on these VMs the same build's CPU per request
 * moves by 10-40% between runs minutes apart (steal time, neighbours), so an A/B of a change
 * worth a few percent needs many interleaved rounds and is still uncertain. An instruction count
 * does not depend on what else the machine does; it leaves out cache misses and system calls, so
 * it complements /proc and perf rather than replacing them.
 *
 *   npx tsx bench/profiling/callgrind-requests.ts
 *
 * Environment: PARTIES (comma list, default `latchkey,bare`): `latchkey` is this checkout's
 * server, `bare` the bench's bare route (child.ts), any other entry a path to another checkout
 * of Latchkey with node_modules, whose server is measured the same way (an A/B of two versions).
 * OP=profile|validate|login (default profile; with login, `bare` is the bench's login floor,
 * and WARM=2000 N=1000 are enough: see CHEAP_HASH below), WARM requests before counting (default
 * 4000: the hot path must be optimized first), N counted requests (default 2000), TOP functions
 * listed (default 25), NODE_ARGS (more node flags for the servers, e.g.
 * `--interpreted-frames-native-stack` to name interpreted and baseline frames too), INCLUSIVE=1
 * (also lists JavaScript functions by inclusive count, self and callees: a hook that calls
 * Fastify's `done` includes the rest of the request's chain, so read it for leaf-like work such
 * as a token's signing or a session's write), KEEP=<dir> (keeps each party's main-thread dump and
 * perf map there, for `callgrind_annotate --tree=caller` and the like), CACHE_SIM=1 (valgrind
 * simulates the first-level caches as well; the main thread's misses of the 32 KiB instruction
 * and data caches per request are printed under the totals, and `callgrind_annotate
 * --show=I1mr,D1mr --show-percs=no` on the KEEP dumps gives them per function; the last-level
 * columns model the L3 valgrind reads from the CPU, on these VMs a virtual 260-480 MiB that
 * nothing misses, so they say nothing). Each party runs alone under valgrind (~1.5 minutes
 * each). Requests go 8 at a time (logins 4, see IN_FLIGHT), each with a token of its own: every Latchkey server mints
 * WARM + N tokens of one session and uses each once, so no token is ever seen twice, found in
 * the verified-token cache or stored in it, as in the bench's cold rows (a token used a second
 * time would be stored then: plugins/tokens/second-sighting.ts). The bare route gets the first
 * Latchkey server's tokens. JavaScript frames are named from V8's perf map (`--perf-basic-prof`),
 * which is deleted once read.
 *
 * Only the main thread is counted per request: V8's compiler and GC helper threads run at their
 * own pace and are reported as one total. A run lands in one of a few states, and only runs in
 * the same state compare (on an idle machine one build gives 227.0k to 230.9k in the usual state
 * over four runs):
 * - the usual one;
 * - ~+35k: V8's runtime paths for object shape transitions in the list
 *   (`Runtime_DefineKeyedOwnPropertyInLiteral` ~3.9k per request, `MigrateToMap`), from the start
 *   of the counted window or part of it: Node's `nextTick` building its tick objects through the
 *   runtime after full collections have freed their maps;
 * - ~+100k: `@libsql/.../index.node` in the list, session reads going to SQLite. Seen under
 *   valgrind only: natively the same rows read SQLite 0 times in ~440,000 session lookups.
 * Run on an otherwise idle machine (under load the warm-up did not reach V8's optimized code:
 * 457k), repeat a comparison, and read the function lists before trusting a total.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildSpec } from '../accounts/child.js';
import { startCheckoutChild, type Party } from '../accounts/parties.js';
import { postJson } from '../accounts/http.js';
import { hashPassword } from '../../plugins/users/password.js';

const SECRET = 'profiling-secret-0123456789abcdef0123456789';
const PASSWORD = 'Correct-horse-9';
/**
 * OP=login signs in with another password than the signup's, the one the cheap hash is made of:
 * a 200 then shows the stored hash was replaced (with one password for both, the production hash
 * would have answered as well, and valgrind would have counted something else).
 */
const CHEAP_PASSWORD = 'Cheap-horse-9';
const FLAGS = { 'rate-limit-per-minute': 0, 'memory-store': 'database', 'jwt-secret': SECRET };
/**
 * Requests in flight. Logins go 4 at a time: they all sign in one account, whose password checks
 * run at most LOCKOUT_FAILURES (5) at once (plugins/users/service.ts); more waited in that gate,
 * polling, which was counted with the login and, on a loaded machine, ended in 429s.
 */
const IN_FLIGHT = process.env.OP === 'login' ? 4 : 8;

/** A whole number knob from the environment, refused at once when it is not one. */
function knob(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  const n = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name}=${raw}: a whole number of at least ${min} is needed`);
  return n;
}
const OPS = ['profile', 'validate', 'login'] as const;
const op = (process.env.OP ?? 'profile') as (typeof OPS)[number];
if (!OPS.includes(op)) throw new Error(`OP=${process.env.OP}: one of ${OPS.join(', ')}`);
/** The request path of each op, on Latchkey and on the bare route (for logins, the login floor). */
const PATHS = {
  profile: ['/v1/profile', '/verify'],
  validate: ['/v1/validate_jwt_token', '/validate'],
  login: ['/v1/login', '/login'],
} as const;
const EMAIL = 'cold@example.com';
/**
 * OP=login: the user's password hash has the cheapest Argon2id parameters (8 KiB, one pass), put
 * in its row after signup. A login then costs the hash workers next to nothing, and what is
 * counted is the main thread's own work per login, which does not depend on the parameters (no
 * rehash on login). Under valgrind the production hash (19 MiB, two passes) would take about a
 * second a login, every thread running in turn.
 */
const CHEAP_HASH = { memoryCost: 8, timeCost: 1, parallelism: 1 };
const warm = knob('WARM', 4000, 0);
const counted = knob('N', 2000, IN_FLIGHT);
const top = knob('TOP', 25, 1);
const here = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** One JIT code range of V8's perf map; a later line wins where ranges were reused. */
interface JitRange {
  start: number;
  end: number;
  name: string;
  line: number;
}

function readPerfMap(path: string): JitRange[] {
  if (!existsSync(path)) return [];
  const ranges = readFileSync(path, 'utf8')
    .split('\n')
    .map((l, line) => {
      const [start, size, ...name] = l.split(' ');
      return { start: parseInt(start, 16), end: parseInt(start, 16) + parseInt(size, 16), name: name.join(' '), line };
    })
    .filter((r) => Number.isFinite(r.start) && r.name !== '');
  return ranges.sort((a, b) => a.start - b.start);
}

function nameAt(ranges: JitRange[], addr: number): string | undefined {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ranges[mid].start <= addr) lo = mid + 1;
    else hi = mid - 1;
  }
  let best: JitRange | undefined;
  // Code objects are freed and their addresses reused: the newest range holding the address is its name.
  for (let i = hi; i >= 0 && i > hi - 64; i--)
    if (ranges[i].start <= addr && addr < ranges[i].end && (!best || ranges[i].line > best.line)) best = ranges[i];
  return best?.name;
}

/** Self instructions by function in a callgrind dump (callgrind_annotate's flat list). */
function selfCosts(
  dump: string,
  ranges: JitRange[],
  inclusive = false,
): { total: number; byFunction: Map<string, number> } {
  // Instructions only: with CACHE_SIM the dump holds more events, whose columns would run into the names.
  const text = execFileSync(
    'callgrind_annotate',
    ['--show=Ir', '--threshold=100', ...(inclusive ? ['--inclusive=yes'] : []), dump],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const line of text.split('\n')) {
    const m = /^\s*([\d,]+)\s+\([^)]*\)\s+(.*)$/.exec(line);
    if (!m) continue;
    const n = Number(m[1].replaceAll(',', ''));
    let fn = m[2];
    if (fn.includes('PROGRAM TOTALS')) {
      total = n;
      continue;
    }
    const jit = /^\?\?\?:0x([0-9a-f]+) \[\?\?\?\]$/.exec(fn);
    if (jit) fn = nameAt(ranges, parseInt(jit[1], 16)) ?? fn;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + n);
  }
  return { total, byFunction };
}

/** First-level cache misses the simulation counted (CACHE_SIM=1): instruction, data read, data write. */
const MISS_EVENTS = ['I1mr', 'D1mr', 'D1mw'] as const;
type Misses = Record<(typeof MISS_EVENTS)[number], number>;

/** A dump's total first-level misses, from its PROGRAM TOTALS line. */
function cacheMisses(dump: string): Misses {
  const text = execFileSync(
    'callgrind_annotate',
    [`--show=${MISS_EVENTS.join(',')}`, '--show-percs=no', '--threshold=100', dump],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  const shown = /^Events shown:\s+(.*)$/m.exec(text)?.[1].trim().split(/\s+/) ?? [];
  const totals = /^\s*([\d,.\s]+?)\s+PROGRAM TOTALS/m.exec(text)?.[1].trim().split(/\s+/) ?? [];
  const at = (event: string) => Number((totals[shown.indexOf(event)] ?? '0').replaceAll(',', '').replace(/^\.$/, '0'));
  return { I1mr: at('I1mr'), D1mr: at('D1mr'), D1mw: at('D1mw') };
}

interface Measured {
  label: string;
  mainPerRequest: number;
  helpersPerRequest: number;
  /** With CACHE_SIM=1: the main thread's first-level misses per request. */
  missesPerRequest?: Misses;
  byFunction: Map<string, number>;
  /** With INCLUSIVE=1: each function's instructions with its callees'. */
  inclusive?: Map<string, number>;
}

const cacheSim = process.env.CACHE_SIM === '1';

/** The program that runs node under callgrind, counting off until the warm-up is done; written once. */
function callgrindWrapper(dir: string): string {
  const wrapper = join(dir, 'node-under-callgrind.sh');
  writeFileSync(
    wrapper,
    `#!/bin/sh\nexec valgrind --tool=callgrind ${cacheSim ? '--cache-sim=yes ' : ''}--instr-atstart=no --separate-threads=yes --callgrind-out-file=${dir}/cg.%p.out -q node "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  return wrapper;
}
const nodeArgs = ['--perf-basic-prof', ...(process.env.NODE_ARGS ?? '').split(' ').filter((a) => a !== '')];

/** One request of the measured kind with its `i`-th token (logins need none); throws unless answered 200. */
type Send = (i: number) => Promise<void>;

function sender(party: Party, path: string, tokens: string[]): Send {
  const url = `${party.url.replace(/\/(verify|login)$/, '')}${path}`;
  const post = (body: unknown) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: party.origin },
      body: JSON.stringify(body),
    });
  return async (i) => {
    const res =
      op === 'profile'
        ? await fetch(url, { headers: { authorization: `Bearer ${tokens[i]}` } })
        : op === 'validate'
          ? await post({ token_type: 'access_token', token: tokens[i] })
          : await post({ email: EMAIL, password: CHEAP_PASSWORD });
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
}

async function requests(send: Send, n: number, from: number): Promise<void> {
  for (let i = 0; i < n; i += IN_FLIGHT) {
    // Exactly n requests (the last batch may be smaller): each token once, and the count divides evenly.
    await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, n - i) }, (_, j) => send(from + i + j)));
  }
}

/** The warm-up, then the counted requests; the party is closed and its perf map deleted whatever happens. */
async function measure(label: string, party: Party, path: string, tokens: string[], dir: string): Promise<Measured> {
  const perfMap = `/tmp/perf-${party.pid}.map`;
  const send = sender(party, path, tokens);
  try {
    await requests(send, warm, 0);
    const control = (args: string[]) =>
      execFileSync('callgrind_control', [...args, String(party.pid)], { stdio: 'ignore' });
    control(['-i', 'on']);
    await requests(send, counted, warm);
    control(['-i', 'off']);
    control(['-d']);
    const dumps = readdirSync(dir).filter((f) => f.startsWith(`cg.${party.pid}.out.1-`));
    const main = dumps.find((f) => f.endsWith('-01'));
    if (!main) throw new Error(`${label}: no callgrind dump of the main thread in ${dir}`);
    const ranges = readPerfMap(perfMap);
    const keep = process.env.KEEP;
    if (keep) {
      // For callgrind_annotate --tree=caller and the like: the main thread's dump and V8's perf map.
      mkdirSync(keep, { recursive: true });
      copyFileSync(join(dir, main), join(keep, `${label.replace(/[^\w.-]+/g, '_')}.callgrind.out`));
      if (existsSync(perfMap)) copyFileSync(perfMap, join(keep, `${label.replace(/[^\w.-]+/g, '_')}.perf.map`));
    }
    const costs = selfCosts(join(dir, main), ranges);
    const inclusive = process.env.INCLUSIVE === '1' ? selfCosts(join(dir, main), ranges, true).byFunction : undefined;
    let helpers = 0;
    for (const f of dumps) if (f !== main) helpers += selfCosts(join(dir, f), []).total;
    const misses = cacheSim ? cacheMisses(join(dir, main)) : undefined;
    const missesPerRequest = misses && {
      I1mr: misses.I1mr / counted,
      D1mr: misses.D1mr / counted,
      D1mw: misses.D1mw / counted,
    };
    return {
      label,
      mainPerRequest: costs.total / counted,
      helpersPerRequest: helpers / counted,
      byFunction: costs.byFunction,
      inclusive,
      missesPerRequest,
    };
  } finally {
    await party.close();
    rmSync(perfMap, { force: true });
  }
}

const entries = (process.env.PARTIES ?? 'latchkey,bare').split(',').filter(Boolean);
const firstLatchkey = entries.findIndex((e) => e !== 'bare');
if (entries.indexOf('bare') !== -1 && (firstLatchkey === -1 || entries.indexOf('bare') < firstLatchkey))
  throw new Error('PARTIES: bare needs a Latchkey party before it (its tokens and issuer)');
const dir = mkdtempSync(join(tmpdir(), 'latchkey-callgrind-'));
const wrapper = callgrindWrapper(dir);
const start = (checkout: string, spec: ChildSpec) =>
  startCheckoutChild(checkout, spec, { execArgv: nodeArgs, execPath: wrapper });
const results: Measured[] = [];
let tokens: string[] = [];
let issuer = '';
const cheapHash = op === 'login' ? await hashPassword(CHEAP_PASSWORD, CHEAP_HASH) : '';
/** The floor answers with a Latchkey login response's body (child.ts, bareLogin). */
let loginBody = '';
try {
  for (const entry of entries) {
    if (entry === 'bare') {
      const party = await start(
        here,
        op === 'login'
          ? { kind: 'bare-login', stored: cheapHash, body: loginBody }
          : { kind: 'bare', alg: 'HS256', secret: SECRET, issuer },
      );
      results.push(await measure(op === 'login' ? 'login floor' : 'bare', party, PATHS[op][1], tokens, dir));
      continue;
    }
    const party = await start(entry === 'latchkey' ? here : resolve(entry), { kind: 'latchkey', flags: FLAGS });
    let own: string[];
    try {
      await postJson(
        `${party.url}/v1/signup`,
        { email: EMAIL, password: PASSWORD, confirm_password: PASSWORD },
        { origin: party.origin },
      );
      if (op === 'login') {
        await party.storeHash(EMAIL, cheapHash);
        if (loginBody === '')
          loginBody = JSON.stringify(
            await postJson(
              `${party.url}/v1/login`,
              { email: EMAIL, password: CHEAP_PASSWORD },
              { origin: party.origin },
            ),
          );
      }
      own = op === 'login' ? [] : await party.mint(warm + counted, EMAIL);
    } catch (err) {
      await party.close();
      throw err;
    }
    if (tokens.length === 0) {
      tokens = own;
      issuer = party.origin;
    }
    results.push(await measure(entry, party, PATHS[op][0], own, dir));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const k = (n: number) => `${(n / 1000).toFixed(1)}k`;
console.log(
  `\n${op === 'login' ? 'login, cheap Argon2id hash' : `${op}, cold HS256 tokens`}: instructions per request (main thread; V8 helper threads apart)`,
);
for (const r of results)
  console.log(`${r.label.padEnd(40)} ${k(r.mainPerRequest).padStart(8)}   helpers ${k(r.helpersPerRequest)}`);
if (cacheSim) {
  console.log(
    '\nfirst-level cache misses per request (main thread; simulated 32 KiB caches): instruction, data read, data write',
  );
  for (const r of results)
    if (r.missesPerRequest)
      console.log(`${r.label.padEnd(40)} ${MISS_EVENTS.map((e) => k(r.missesPerRequest![e]).padStart(8)).join(' ')}`);
}
for (const r of results) {
  console.log(`\n${r.label}: top functions, instructions per request (self)`);
  for (const [fn, n] of [...r.byFunction].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(
      `${Math.round(n / counted)
        .toString()
        .padStart(8)}  ${fn.slice(0, 130)}`,
    );
}
for (const r of results) {
  if (!r.inclusive) continue;
  console.log(`\n${r.label}: JavaScript functions by inclusive instructions per request (self and callees)`);
  const js = [...r.inclusive].filter(([fn]) => fn.startsWith('JS:'));
  for (const [fn, n] of js.sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(
      `${Math.round(n / counted)
        .toString()
        .padStart(8)}  ${fn.slice(0, 130)}`,
    );
}
if (results.length >= 2) {
  const [a, b] = results;
  console.log(`\n${a.label} minus ${b.label}: the largest differences, instructions per request`);
  const names = new Set([...a.byFunction.keys(), ...b.byFunction.keys()]);
  const diff = [...names].map(
    (fn) => [fn, ((a.byFunction.get(fn) ?? 0) - (b.byFunction.get(fn) ?? 0)) / counted] as const,
  );
  for (const [fn, d] of diff.sort((x, y) => Math.abs(y[1]) - Math.abs(x[1])).slice(0, top))
    console.log(`${(d >= 0 ? '+' : '') + Math.round(d)}`.padStart(8), ` ${fn.slice(0, 130)}`);
}
