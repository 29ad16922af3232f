/**
 * Two nodes behind one address (README "Running several nodes"): two `latchkey` processes, started
 * as a user starts them, on one PostgreSQL database and one Redis, with the same --url (the load
 * balancer's). A user signs up on A and logs in on B; A accepts B's token; a logout on A ends it on
 * B at once; an FGA tuple written on A answers on B within the documented propagation time
 * (plugins/fga/README.md: one 250 ms poll, asserted with slack for a busy machine); and the per-IP
 * limit is one budget over both nodes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import t from 'tap';
import { databaseTarget, freshRedisUrl, redisAvailable } from '../../helpers/databases.js';
import { freePort } from '../../helpers/ports.js';

const BIN = new URL('../../../bin/latchkey.ts', import.meta.url).pathname;
const ADMIN_SECRET = 'two-nodes-admin-secret';
const LIMIT = 80;
/** One FGA poll (250 ms) plus slack for a busy 2-core machine, as test/plugins/fga/sync.test.ts. */
const PROPAGATION_BOUND_MS = 1_000;

interface Node {
  base: string;
  child: ChildProcess;
}

/** Starts one node and resolves once it logs that it is listening. */
function startNode(flags: Record<string, string>, port: number): Promise<Node> {
  const args = Object.entries({ ...flags, 'http-port': String(port) }).flatMap(([k, v]) => [`--${k}`, v]);
  const child = spawn(process.execPath, ['--import=tsx', BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`node on ${port} did not start:\n${out}`));
    }, 60_000);
    const seen = (d: Buffer) => {
      out += d.toString();
      if (out.includes('latchkey is listening')) {
        clearTimeout(timer);
        resolve({ base: `http://127.0.0.1:${port}`, child });
      }
    };
    child.stdout?.on('data', seen);
    child.stderr?.on('data', seen);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`node on ${port} exited with ${code}:\n${out}`));
    });
  });
}

function stopNode(node: Node): Promise<void> {
  return new Promise((resolve) => {
    if (node.child.exitCode !== null) return resolve();
    node.child.once('exit', () => resolve());
    node.child.kill('SIGTERM');
  });
}

const postgres = await databaseTarget('postgres');
const redisUp = await redisAvailable();
t.teardown(() => postgres?.dispose());

t.test(
  'two server processes on one PostgreSQL database and one Redis',
  { skip: postgres && redisUp ? false : 'PostgreSQL and Redis are needed' },
  async (t) => {
    if (!postgres) return;
    const [portA, portB] = [await freePort(), await freePort()];
    const url = `http://localhost:${portA}`;
    const shared: Record<string, string> = {
      ...(Object.fromEntries(Object.entries(postgres.flags).map(([k, v]) => [k, String(v)])) as Record<string, string>),
      'redis-url': freshRedisUrl(),
      url,
      host: '127.0.0.1',
      'client-id': 'two-nodes',
      'client-secret': 'two-nodes-secret',
      'admin-secret': ADMIN_SECRET,
      'jwt-type': 'HS256',
      'jwt-secret': 'two-nodes-jwt-secret-0123456789abcdef',
      'rate-limit-per-minute': String(LIMIT),
      'log-level': 'info',
    };
    // One after the other: the first brings the schema up to date, the second finds it so.
    const a = await startNode(
      { ...shared, 'grpc-port': String(await freePort()), 'metrics-port': String(await freePort()) },
      portA,
    );
    t.teardown(() => stopNode(a));
    const b = await startNode(
      { ...shared, 'grpc-port': String(await freePort()), 'metrics-port': String(await freePort()) },
      portB,
    );
    t.teardown(() => stopNode(b));

    const call = (node: Node, path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${node.base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: url, ...headers },
        body: JSON.stringify(body),
      });
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    const admin = { 'x-service-admin-secret': ADMIN_SECRET };

    const email = 'two-nodes@example.com';
    const password = 'Two-nodes-pass-1';
    const signup = await call(a, '/v1/signup', { email, password, confirm_password: password });
    t.equal(signup.status, 200, 'signed up on A');
    const login = await call(b, '/v1/login', { email, password });
    t.equal(login.status, 200, 'logged in on B');
    const { access_token: token, user } = (await login.json()) as { access_token: string; user: { id: string } };

    const profileOnA = await fetch(`${a.base}/v1/profile`, { headers: bearer(token) });
    t.equal(profileOnA.status, 200, "A accepts B's token");
    t.equal(((await profileOnA.json()) as { email: string }).email, email);
    const validated = await call(a, '/v1/validate_jwt_token', { token_type: 'access_token', token });
    t.equal(((await validated.json()) as { is_valid: boolean }).is_valid, true, "A validates B's token");

    // FGA: a model and a tuple written on A, checked on B with B's token.
    const model = 'model\n  schema 1.1\ntype user\ntype doc\n  relations\n    define viewer: [user]\n';
    t.equal((await call(a, '/v1/admin/fga/model', { dsl: model }, admin)).status, 200, 'model on A');
    const viewsOnB = async () => {
      const res = await call(
        b,
        '/v1/check_permissions',
        { checks: [{ relation: 'viewer', object: 'doc:1' }] },
        bearer(token),
      );
      if (res.status !== 200) return false;
      return ((await res.json()) as { results: { allowed: boolean }[] }).results[0].allowed;
    };
    const written = await call(
      a,
      '/v1/admin/fga/tuples',
      {
        tuples: [{ user: `user:${user.id}`, relation: 'viewer', object: 'doc:1' }],
      },
      admin,
    );
    t.equal(written.status, 200, 'tuple written on A');
    const start = performance.now();
    let allowed = false;
    while (!(allowed = await viewsOnB()) && performance.now() - start < 5_000)
      await new Promise((r) => setTimeout(r, 50));
    const took = performance.now() - start;
    t.ok(allowed, 'B answers the tuple written on A');
    t.ok(took < PROPAGATION_BOUND_MS, `within the propagation bound (${took.toFixed(0)} ms)`);

    // Logout on A ends the session B issued, on B, at once.
    t.equal((await call(a, '/v1/logout', {}, bearer(token))).status, 200, 'logged out on A');
    const afterOnB = await fetch(`${b.base}/v1/profile`, { headers: bearer(token) });
    t.equal(afterOnB.status, 401, 'the token is refused on B at once');

    // The per-IP limit: whatever of the budget is left, requests spread over A and B spend it once.
    const probe = await fetch(`${a.base}/v1/meta`);
    t.equal(probe.headers.get('ratelimit-limit'), String(LIMIT));
    const left = Number(probe.headers.get('ratelimit-remaining'));
    t.ok(left > 0 && left < LIMIT, `${left} of ${LIMIT} left after the requests above, counted on both nodes`);
    const statuses: number[] = [];
    for (let i = 0; i < left + 2; i++) statuses.push((await fetch(`${(i % 2 ? b : a).base}/v1/meta`)).status);
    t.same(
      statuses,
      [...Array(left).fill(200), 429, 429],
      'alternating between the nodes trips the limit after exactly the budget left',
    );
  },
);
