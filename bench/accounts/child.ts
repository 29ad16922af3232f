/**
 * One measured party of the accounts bench, in its own process: a Latchkey server, a bare
 * Fastify route that verifies a token, the login floor (a bare route over the server's hash
 * workers), or the raw Argon2id loop. The load generator (autocannon)
 * stays in the parent, so every HTTP party shares the machine with the same client the same way,
 * and no party loses CPU to a client living on its own event loop.
 *
 * Protocol (IPC): the child sends `{ ready: true, url? }`; the parent may send
 * `{ run: seconds, concurrency?, threads? }` (raw hash only: `concurrency` calls in flight on
 * libuv's pool, or with `threads` that many worker threads hashing back to back; answered with
 * `{ result }`) and finally `'close'`.
 * With BENCH_CPU_PROF=<dir> the parent starts children with `--cpu-prof` into that directory.
 */
import { createPublicKey, createSecretKey } from 'node:crypto';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import Fastify from 'fastify';
import { jwtVerify } from 'jose';
import type { VerifiedCacheStats } from '../../plugins/tokens/types.js';
import { availableParallelism } from 'node:os';
import { holdResponsesPerTurn } from '../../transports/http/held-responses.js';
import { UserEntity } from '../../plugins/users/entities.js';
import { createHashWorkers } from '../../plugins/users/hash-workers.js';
import { verifyPassword } from '../../plugins/users/password.js';
import { startTestServer } from '../../test/helpers/server.js';
import { portOf } from '../child.js';
import { closedLoop, type LoadResult } from '../load.js';

export type ChildSpec =
  | { kind: 'latchkey'; flags: Record<string, string | number | boolean | undefined> }
  | { kind: 'bare'; alg: 'HS256' | 'RS256'; secret?: string; publicPem?: string; issuer: string }
  | { kind: 'argon2'; stored: string; password: string; concurrency: number }
  | { kind: 'bare-login'; stored: string; body: string };

type Message =
  | 'close'
  | 'cacheStats'
  | { run: number; concurrency?: number; threads?: boolean }
  | { mint: number; email: string }
  | { storeHash: string; email: string };

/**
 * A worker that verifies the stored hash synchronously, back to back, from 'go' until `seconds`
 * later, then posts how many it did and each one's milliseconds.
 */
const HASH_LOOP_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const argon2 = require(workerData.argon2Path);
parentPort.postMessage('ready');
parentPort.once('message', () => {
  const end = performance.now() + workerData.seconds * 1000;
  const lat = [];
  let errors = 0;
  while (performance.now() < end) {
    const s = performance.now();
    if (!argon2.verifySync(workerData.stored, workerData.password)) errors++;
    lat.push(performance.now() - s);
  }
  parentPort.postMessage({ lat, errors });
});
`;

/**
 * The raw hash with no event loop in the way: \`threads\` worker threads, each verifying back to
 * back (what the server's hash workers do when logins queue; plugins/users/hash-workers.ts).
 */
async function hashThreads(stored: string, password: string, threads: number, seconds: number): Promise<LoadResult> {
  const argon2Path = createRequire(import.meta.url).resolve('@node-rs/argon2');
  const workers = Array.from(
    { length: threads },
    () => new Worker(HASH_LOOP_SOURCE, { eval: true, workerData: { argon2Path, stored, password, seconds } }),
  );
  await Promise.all(workers.map((w) => new Promise((resolve) => w.once('message', resolve))));
  const done = workers.map(
    (w) => new Promise<{ lat: number[]; errors: number }>((resolve) => w.once('message', resolve)),
  );
  const t0 = performance.now();
  for (const w of workers) w.postMessage('go');
  const results = await Promise.all(done);
  const elapsedS = (performance.now() - t0) / 1000;
  await Promise.all(workers.map((w) => w.terminate()));
  const lat = results.flatMap((r) => r.lat).sort((a, b) => a - b);
  return {
    rps: lat.length / elapsedS,
    p99ms: lat[Math.min(lat.length - 1, Math.floor(lat.length * 0.99))] ?? 0,
    errors: results.reduce((n, r) => n + r.errors, 0),
  };
}

const send = (m: unknown) => process.send?.(m);

async function bare(spec: Extract<ChildSpec, { kind: 'bare' }>): Promise<{ url: string; close(): Promise<void> }> {
  // The same verification Latchkey does: jose's jwtVerify with the key object made once, the
  // algorithm pinned, the issuer checked and `exp` required (plugins/tokens/key-verifier.ts).
  const key =
    spec.alg === 'HS256'
      ? createSecretKey(new TextEncoder().encode(spec.secret ?? ''))
      : createPublicKey(spec.publicPem ?? '');
  const options = { issuer: spec.issuer, algorithms: [spec.alg], requiredClaims: ['exp'] };
  const verify = async (token: string): Promise<Record<string, unknown> | null> => {
    try {
      return (await jwtVerify(token, key, options)).payload;
    } catch {
      return null;
    }
  };
  const app = Fastify({ logger: false });
  // The same work a resource server does: read the bearer token, verify it, answer with its claims.
  app.get('/verify', async (req, reply) => {
    const claims = await verify((req.headers.authorization ?? '').slice(7));
    return claims ? { is_valid: true, claims } : reply.code(401).send({ is_valid: false });
  });
  // The same check with the token in a JSON body, the request shape of validate_jwt_token.
  app.post('/validate', async (req, reply) => {
    const token = (req.body as { token?: unknown } | undefined)?.token;
    const claims = typeof token === 'string' ? await verify(token) : null;
    return claims ? { is_valid: true, claims } : reply.code(401).send({ is_valid: false });
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { url: `http://127.0.0.1:${portOf(app.server)}/verify`, close: () => app.close() };
}

/**
 * The login floor: a plain Fastify POST route that verifies the password on the server's own hash
 * workers (one per core, plugins/users/hash-workers.ts), writes its answers per event-loop turn as
 * Latchkey does (transports/http/held-responses.ts), and does nothing else: no user lookup, no
 * session, no token, no cookie. `body` is the body of a Latchkey login response, sent as is
 * (without Latchkey's cookies and security headers). What any Node server with this hash pool can
 * reach on the machine, so a login row can be read against it as well as against the raw hash.
 */
async function bareLogin(
  spec: Extract<ChildSpec, { kind: 'bare-login' }>,
): Promise<{ url: string; close(): Promise<void> }> {
  const hashers = createHashWorkers(availableParallelism());
  const app = Fastify({ logger: false });
  holdResponsesPerTurn(app);
  app.post('/login', async (req, reply) => {
    const password = (req.body as { password?: unknown } | undefined)?.password;
    const ok = typeof password === 'string' && (await hashers.verify(spec.stored, password));
    return ok ? reply.type('application/json').send(spec.body) : reply.code(401).send({ error: 'unauthenticated' });
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url: `http://127.0.0.1:${portOf(app.server)}/login`,
    close: async () => {
      await app.close();
      await hashers.close();
    },
  };
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '{}') as ChildSpec;
  let close: () => Promise<void> = async () => {};
  let run: ((seconds: number, concurrency?: number, threads?: boolean) => Promise<LoadResult>) | undefined;
  let mint: ((n: number, email: string) => Promise<string[]>) | undefined;
  let storeHash: ((email: string, stored: string) => Promise<void>) | undefined;
  let cacheStats: (() => VerifiedCacheStats) | undefined;
  if (spec.kind === 'latchkey') {
    const server = await startTestServer({ flags: spec.flags });
    close = () => server.close();
    // Many distinct access tokens of one live session, for the cold-cache rows.
    mint = async (n, email) => {
      const users = server.kernel.service('users');
      const user = await users.findByEmail(email);
      if (!user) throw new Error(`no user ${email}`);
      const session = await server.kernel
        .service('sessions')
        .create({ userId: user.id, roles: user.roles, scopes: ['openid'], amr: ['pwd'] });
      const tokens = server.kernel.service('tokens');
      const out: string[] = [];
      for (let i = 0; i < n; i++)
        out.push((await tokens.issue({ user, session, scopes: ['openid'], roles: user.roles })).access_token);
      return out;
    };
    // A password hash of the caller's making in the user's row, written as another process would
    // (the server sees the commit through its change stamp): callgrind-requests.ts OP=login gives
    // the user a cheap Argon2id hash, so that valgrind counts the login's own work in reasonable time.
    storeHash = async (email, stored) => {
      const changed = await server.kernel.storage.em().fork().nativeUpdate(UserEntity, { email }, { password: stored });
      if (changed !== 1) throw new Error(`no user ${email}`);
    };
    cacheStats = () => server.kernel.service('tokens').verifiedCacheStats();
    send({ ready: true, url: server.url.replace('localhost', '127.0.0.1'), origin: server.url });
  } else if (spec.kind === 'bare') {
    const b = await bare(spec);
    close = () => b.close();
    send({ ready: true, url: b.url });
  } else if (spec.kind === 'bare-login') {
    const b = await bareLogin(spec);
    close = () => b.close();
    send({ ready: true, url: b.url });
  } else {
    run = (seconds, concurrency, threads) =>
      threads
        ? hashThreads(spec.stored, spec.password, concurrency ?? spec.concurrency, seconds)
        : closedLoop(() => verifyPassword(spec.stored, spec.password), concurrency ?? spec.concurrency, seconds);
    send({ ready: true });
  }
  process.on('message', (m: Message) => {
    if (m === 'close') {
      void close().finally(() => process.exit(0));
    } else if (m === 'cacheStats') {
      send({ cacheStats: cacheStats?.() ?? null });
    } else if ('storeHash' in m) {
      // Answered either way, so the parent never waits on a write that failed.
      void (storeHash ?? (() => Promise.reject(new Error(`${spec.kind}: no users here`))))(m.email, m.storeHash).then(
        () => send({ stored: true }),
        (err: unknown) => send({ stored: false, error: String((err as Error)?.message ?? err) }),
      );
    } else if ('mint' in m) {
      void mint?.(m.mint, m.email).then((tokens) => send({ tokens }));
    } else if (run) {
      void run(m.run, m.concurrency, m.threads).then((result) => send({ result }));
    }
  });
}

await main();
