/**
 * The `latchkey` binary as a user starts it, including each startup refusal.
 *
 * The binary is started as a process where the process itself is what is checked: its exit codes
 * (1 for a refused configuration, 2 for a command line that does not parse, 0 for --help and a
 * graceful stop), its stderr, serving, and failing after it bound a port. Every other refusal
 * goes through runCli in this process, the function the binary's entry point (transports/cli/
 * main.ts) hands its arguments to and whose number it exits with: the same checks and messages,
 * without loading every plugin and library again in a new process for each (a few seconds of
 * CPU each, 22 of them in all).
 */
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { defaultPlugins } from '../../../plugins/default.js';
import { runCli } from '../../../transports/cli/run.js';
import { freePort } from '../../helpers/ports.js';

// The binary's source, run through tsx like the rest of the suite (the package runs dist/bin/latchkey.js).
const BIN = new URL('../../../bin/latchkey.ts', import.meta.url).pathname;

function run(args: string[], waitFor?: RegExp): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import=tsx', BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const check = () => {
      if (waitFor && waitFor.test(stdout + stderr)) child.kill('SIGTERM');
    };
    child.stdout.on('data', (d) => ((stdout += d), check()));
    child.stderr.on('data', (d) => ((stderr += d), check()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stdout });
    });
  });
}

interface Outcome {
  code: number | null;
  stderr: string;
  stdout: string;
}

/** The binary's checks on `args`, in this process: the exit code it would end with and what it would print. */
async function check(args: string[]): Promise<Outcome> {
  let stdout = '';
  let stderr = '';
  const result = await runCli(args, defaultPlugins, {
    out: (text) => (stdout += `${text}\n`),
    err: (text) => (stderr += `${text}\n`),
  });
  if (typeof result === 'number') return { code: result, stderr, stdout };
  // It started where it should have refused: stopped, and reported as exit code null.
  await result.close();
  return { code: null, stderr, stdout };
}

let dir: string;
t.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'latchkey-cli-'));
});

const base = (over: Record<string, string | null> = {}): string[] => {
  const flags: Record<string, string | null> = {
    '--database-type': 'sqlite',
    '--database-url': join(dir, 'cli.db'),
    '--url': 'http://localhost:8080',
    '--client-id': 'app',
    '--client-secret': 'app-secret',
    '--admin-secret': 'admin',
    '--jwt-type': 'HS256',
    '--jwt-secret': 'jwt-secret',
    ...over,
  };
  return Object.entries(flags).flatMap(([k, v]) => (v === null ? [] : [k, v]));
};

t.test('--admin-secret missing or empty exits with the exact message', async (t) => {
  const missing = await run(base({ '--admin-secret': null }));
  t.equal(missing.code, 1, 'the process exits with 1');
  t.equal(missing.stderr.trim(), '--admin-secret is required and must not be empty.');
  const empty = await check(base({ '--admin-secret': '' }));
  t.equal(empty.code, 1);
  t.equal(empty.stderr.trim(), '--admin-secret is required and must not be empty.');
});

t.test('--url must be an absolute http(s) URL without user info', async (t) => {
  for (const value of [null, 'auth.example.com', 'ftp://x.example', 'https://user:pw@x.example']) {
    const r = await check(base({ '--url': value }));
    t.equal(r.code, 1, String(value));
    t.match(r.stderr, /--url/);
  }
});

t.test('database flags are required', async (t) => {
  const r = await check(base({ '--database-type': null }));
  t.equal(r.code, 1);
  t.match(r.stderr, /--database-type is required/);
  const pg = await check(base({ '--database-type': 'postgres', '--database-url': null }));
  t.equal(pg.code, 1);
  t.match(pg.stderr, /--database-url is required/);
});

t.test('JWT key rules', async (t) => {
  const hs = await check(base({ '--jwt-secret': null }));
  t.equal(hs.code, 1);
  t.match(hs.stderr, /--jwt-secret is required for --jwt-type HS256/);
  const rs = await check(base({ '--jwt-type': 'RS256', '--jwt-secret': null }));
  t.equal(rs.code, 1);
  t.match(rs.stderr, /--jwt-private-key and --jwt-public-key are required/);
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const priv = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const pub = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const noEnc = await check(
    base({ '--jwt-type': 'RS256', '--jwt-secret': null, '--jwt-private-key': priv, '--jwt-public-key': pub }),
  );
  t.equal(noEnc.code, 1);
  t.match(noEnc.stderr, /--encryption-key is required/);
});

t.test('ports must differ', async (t) => {
  const r = await check(base({ '--http-port': '9000', '--metrics-port': '9000' }));
  t.equal(r.code, 1);
  t.match(r.stderr, /--http-port and --metrics-port must differ/);
  const g = await check(base({ '--http-port': '9000', '--grpc-port': '9000' }));
  t.equal(g.code, 1);
  t.match(g.stderr, /--http-port and --grpc-port must differ/);
});

t.test('gRPC TLS needs both the certificate and the key, and files that can be read', async (t) => {
  const alone = await check(base({ '--grpc-tls-cert': join(dir, 'cert.pem') }));
  t.not(alone.code, 0);
  t.match(alone.stderr, /--grpc-tls-cert and --grpc-tls-key must be given together/);
  const [http, grpc, metrics] = [await freePort(), await freePort(), await freePort()];
  const missing = await run(
    base({
      '--host': '127.0.0.1',
      '--url': `http://localhost:${http}`,
      '--http-port': String(http),
      '--metrics-port': String(metrics),
      '--grpc-port': String(grpc),
      '--grpc-tls-cert': join(dir, 'no-such-cert.pem'),
      '--grpc-tls-key': join(dir, 'no-such-key.pem'),
    }),
  );
  t.not(missing.code, 0);
  t.match(missing.stderr, /--grpc-tls-cert: cannot read .*no-such-cert\.pem/);
});

t.test('legacy snake_case names and env files are refused', async (t) => {
  const r = await run([...base(), '--database_url', 'x']);
  t.equal(r.code, 2, 'the process exits with 2');
  t.match(r.stderr, /--database_url is not accepted: flag names are kebab-case \(use --database-url\)/);
  const e = await check([...base(), '--env_file', '.env']);
  t.equal(e.code, 2);
  t.match(e.stderr, /--env_file is not supported/);
  const u = await check([...base(), '--no-such-flag', 'x']);
  t.equal(u.code, 2);
  t.match(u.stderr, /unknown flag --no-such-flag/);
});

t.test('--help is generated and grouped by plugin', async (t) => {
  const r = await run(['--help']);
  t.equal(r.code, 0);
  t.match(r.stdout, /^server: /m);
  t.match(r.stdout, /^admin: /m);
  t.match(r.stdout, /--admin-secret/);
  t.notMatch(r.stdout, /^planned-[a-z-]+: /m, 'every flag belongs to a built plugin');
});

t.test('a valid command line starts and serves /v1/meta', async (t) => {
  const [http, grpc, metrics] = [await freePort(), await freePort(), await freePort()];
  const args = base({
    '--http-port': String(http),
    '--grpc-port': String(grpc),
    '--metrics-port': String(metrics),
    '--host': '127.0.0.1',
    '--url': `http://localhost:${http}`,
  });
  const child = spawn(process.execPath, ['--import=tsx', BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((r) => child.on('exit', r));
  // A failed check must not leave the server running, and this file waiting on its output.
  t.teardown(() => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const deadline = Date.now() + 30_000;
  while (!/latchkey is listening/.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  t.match(out, /latchkey is listening/, 'it starts');
  const res = await fetch(`http://127.0.0.1:${http}/v1/meta`);
  t.equal(res.status, 200);
  t.equal(((await res.json()) as { client_id: string }).client_id, 'app');
  child.kill('SIGTERM');
  t.equal(await exited, 0, 'graceful shutdown on SIGTERM');
});

t.test('a listener failing after HTTP was bound ends the process; it does not serve half the transports', async (t) => {
  const [http, grpc] = [await freePort(), await freePort()];
  // The metrics port is taken: its listener fails after HTTP and gRPC are up.
  const { createServer } = await import('node:net');
  const taken = createServer();
  const metrics = await new Promise<number>((resolve) =>
    taken.listen(0, '127.0.0.1', () => resolve((taken.address() as { port: number }).port)),
  );
  t.teardown(() => taken.close());
  const args = base({
    '--http-port': String(http),
    '--grpc-port': String(grpc),
    '--metrics-port': String(metrics),
    '--host': '127.0.0.1',
    '--url': `http://localhost:${http}`,
    '--database-url': join(dir, 'half.db'),
  });
  const r = await run(args);
  t.equal(r.code, 1, 'it exits');
  t.match(r.stderr, /could not start: .*EADDRINUSE/);
  const after = await fetch(`http://127.0.0.1:${http}/readyz`).then(
    (res) => res.status,
    () => 'refused',
  );
  t.equal(after, 'refused', 'nothing answers on the HTTP port');
});

t.test('--trusted-proxies entries must be IP addresses or CIDR ranges', async (t) => {
  const r = await check(base({ '--trusted-proxies': 'loopback' }));
  t.not(r.code, 0);
  t.match(r.stderr, /--trusted-proxies: "loopback" is not an IP address or CIDR range/);
});
