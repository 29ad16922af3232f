/**
 * Accounts section (issue 3): signup, login, `validate_jwt_token` and `profile` (bearer) through
 * the real server, beside references measured in the same run:
 * - the raw Argon2id verification ceiling (the login upper bound on this machine's cores),
 * - raw jose signing and verification (HS256, RS256),
 * - a bare Fastify route that verifies the same token with the same algorithm and key.
 * Targets: validate_jwt_token and profile >= 80% of the bare verify route; login >= 90% of the
 * hash ceiling. The memory store is the in-process one (sessions are looked up on every call).
 * The better-auth peer is not included: see docs in the row's note.
 */
import { generateKeyPairSync } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';
import { importSPKI, jwtVerify, SignJWT } from 'jose';
import { hashPassword, PRODUCTION_PARAMS, verifyPassword } from '../../plugins/users/password.js';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';
import { closedLoop, httpLoad, type LoadResult } from '../load.js';
import { printTable, type Row } from '../table.js';

const S = 'accounts';
const PASSWORD = 'Bench-pass-1';
const note = (r: LoadResult, extra = '') => `p99 ${r.p99ms.toFixed(2)} ms${r.errors ? `, ${r.errors} errors` : ''}${extra ? `, ${extra}` : ''}`;

async function bareVerifier(alg: 'HS256' | 'RS256', key: Uint8Array | CryptoKey, issuer: string): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify({ logger: false });
  app.get('/verify', async (req, reply) => {
    const h = req.headers.authorization ?? '';
    try {
      const { payload } = await jwtVerify(h.slice(7), key, { issuer, algorithms: [alg] });
      return { is_valid: true, claims: payload };
    } catch {
      return reply.code(401).send({ is_valid: false });
    }
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  return { url: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/verify`, close: () => app.close() };
}

async function tokenPaths(server: TestServer, alg: 'HS256' | 'RS256', key: Uint8Array | CryptoKey, rows: Row[]): Promise<void> {
  const base = server.url.replace('localhost', '127.0.0.1');
  const headers = { 'content-type': 'application/json', origin: server.url };
  await fetch(`${base}/v1/signup`, { method: 'POST', headers, body: JSON.stringify({ email: 'tok@example.com', password: PASSWORD, confirm_password: PASSWORD }) });
  const login = (await (await fetch(`${base}/v1/login`, { method: 'POST', headers, body: JSON.stringify({ email: 'tok@example.com', password: PASSWORD }) })).json()) as { access_token: string };
  const token = login.access_token;
  const bare = await bareVerifier(alg, key, server.url);
  try {
    const ref = await httpLoad({ url: bare.url, headers: { authorization: `Bearer ${token}` } });
    rows.push({ section: S, name: `bare Fastify verify ${alg}`, value: ref.rps, unit: 'req/s', note: note(ref) });
    const vjt = await httpLoad({ url: `${base}/v1/validate_jwt_token`, method: 'POST', headers, body: JSON.stringify({ token_type: 'access_token', token }) });
    rows.push({ section: S, name: `validate_jwt_token ${alg}`, value: vjt.rps, unit: 'req/s', reference: `bare Fastify verify ${alg}`, ratio: vjt.rps / ref.rps, note: note(vjt, 'target 80%') });
    const profile = await httpLoad({ url: `${base}/v1/profile`, headers: { authorization: `Bearer ${token}` } });
    rows.push({ section: S, name: `profile (bearer) ${alg}`, value: profile.rps, unit: 'req/s', reference: `bare Fastify verify ${alg}`, ratio: profile.rps / ref.rps, note: note(profile, 'target 80%') });
  } finally {
    await bare.close();
  }
}

export async function runAccountsBench(): Promise<Row[]> {
  const rows: Row[] = [];
  // Reference: the raw password-hash ceiling, as many verifications in flight as the thread pool runs.
  const stored = await hashPassword(PASSWORD, PRODUCTION_PARAMS);
  const hashRef = await closedLoop(() => verifyPassword(stored, PASSWORD), 8);
  rows.push({ section: S, name: 'raw Argon2id verify (m=19MiB,t=2,p=1)', value: hashRef.rps, unit: 'ops/s', note: note(hashRef) });

  // Reference: raw jose sign/verify.
  const secret = new TextEncoder().encode('bench-secret-bench-secret-bench-secret-0123');
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const rsPub = (await importSPKI(publicPem, 'RS256')) as CryptoKey;
  const hsToken = await new SignJWT({ sub: 'x' }).setProtectedHeader({ alg: 'HS256' }).setIssuer('i').setExpirationTime('1h').sign(secret);
  const hsSign = await closedLoop(() => new SignJWT({ sub: 'x' }).setProtectedHeader({ alg: 'HS256' }).sign(secret), 8, 2);
  rows.push({ section: S, name: 'raw jose sign HS256', value: hsSign.rps, unit: 'ops/s', note: note(hsSign) });
  const hsVerify = await closedLoop(() => jwtVerify(hsToken, secret), 8, 2);
  rows.push({ section: S, name: 'raw jose verify HS256', value: hsVerify.rps, unit: 'ops/s', note: note(hsVerify) });

  // HS256 server: signup, login, token paths.
  const hs = await startTestServer({ flags: { 'rate-limit-per-minute': 0, 'jwt-secret': new TextDecoder().decode(secret) } });
  try {
    const base = hs.url.replace('localhost', '127.0.0.1');
    const headers = { 'content-type': 'application/json', origin: hs.url };
    let n = 0;
    const signup = await closedLoop(async () => {
      const email = `bench${n++}@example.com`;
      const r = await fetch(`${base}/v1/signup`, { method: 'POST', headers, body: JSON.stringify({ email, password: PASSWORD, confirm_password: PASSWORD }) });
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`signup ${r.status}`);
    }, 16);
    rows.push({ section: S, name: 'signup (REST, SQLite)', value: signup.rps, unit: 'req/s', reference: 'raw Argon2id verify (m=19MiB,t=2,p=1)', ratio: signup.rps / hashRef.rps, note: note(signup) });
    const login = await httpLoad({ url: `${base}/v1/login`, method: 'POST', headers, body: JSON.stringify({ email: 'bench0@example.com', password: PASSWORD }) });
    rows.push({ section: S, name: 'login (REST, SQLite)', value: login.rps, unit: 'req/s', reference: 'raw Argon2id verify (m=19MiB,t=2,p=1)', ratio: login.rps / hashRef.rps, note: note(login, 'target 90%') });
    await tokenPaths(hs, 'HS256', secret, rows);
  } finally {
    await hs.close();
  }

  // RS256 server.
  const rs = await startTestServer({
    flags: { 'rate-limit-per-minute': 0, 'jwt-type': 'RS256', 'jwt-secret': undefined, 'jwt-private-key': privatePem, 'jwt-public-key': publicPem, 'encryption-key': 'bench-encryption-key-0123456789abcdef' },
  });
  try {
    await tokenPaths(rs, 'RS256', rsPub, rows);
  } finally {
    await rs.close();
  }
  rows.push({ section: S, name: 'peer better-auth sign-in', value: 0, unit: '-', note: 'not measured: needs a native SQLite driver (better-sqlite3) on Node 20; see report' });
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) printTable(await runAccountsBench());
