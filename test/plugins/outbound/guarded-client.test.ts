/**
 * The guarded outbound client: hosts that are, or resolve to, loopback, private, link-local,
 * unique-local or metadata addresses are refused before any connection is attempted, unless
 * `--outbound-allow-cidrs` lists them; a redirect is answered, never followed; a DNS answer that
 * changes between two connections cannot reach a refused address; time and size are bounded.
 * Every connection attempt the process makes is recorded (Node's `net.client.socket` channel and
 * each socket's `connectionAttempt` event), so "refused before connecting" is checked, not assumed.
 */
import { subscribe } from 'node:diagnostics_channel';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createRemoteJWKSet, customFetch, exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import t from 'tap';
import {
  createAddressPolicy,
  createOutboundClient,
  OutboundError,
  outboundPlugin,
  type OutboundClient,
} from '../../../plugins/outbound/index.js';
import { bootTestKernel } from '../../helpers/kernel.js';
import { startLocalDns } from './local-dns.js';

const attempts: string[] = [];
subscribe('net.client.socket', (message) => {
  const socket = (message as { socket: Socket }).socket;
  socket.on('connectionAttempt', (ip: string) => attempts.push(ip));
});

let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end('hello');
const seen: string[] = [];
const receiver = createServer((req, res) => {
  seen.push(`${req.method} ${req.url}`);
  handler(req, res);
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const port = (receiver.address() as AddressInfo).port;
t.teardown(() => {
  receiver.closeAllConnections();
  receiver.close();
});

const dns = await startLocalDns();
t.teardown(() => dns.close());
dns.answers.set('loopback.test', ['127.0.0.1']);
dns.answers.set('private.test', ['10.0.0.1']);
dns.answers.set('metadata.test', ['169.254.169.254']);
dns.answers.set('v6-loopback.test', ['::1']);
dns.answers.set('mixed.test', ['127.0.0.1', '10.0.0.1']);

const guarded = (allow: string[]): OutboundClient => {
  const client = createOutboundClient({
    policy: createAddressPolicy(allow),
    resolve: dns.resolver,
    defaultTimeoutMs: 2000,
  });
  t.teardown(() => client.close());
  return client;
};
const strict = guarded([]);
const loopbackAllowed = guarded(['127.0.0.1/32']);

async function refusal(p: Promise<unknown>): Promise<OutboundError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof OutboundError) return err;
    throw err;
  }
  throw new Error('the fetch was not refused');
}

t.test('IP literals outside the public space are refused before any connection', async (t) => {
  for (const url of [
    `http://127.0.0.1:${port}/`,
    'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    `http://[::1]:${port}/`,
    'http://[fd00:ec2::254]/',
    `http://[::ffff:127.0.0.1]:${port}/`,
    'http://100.64.0.1/',
    'http://0.0.0.0/',
  ]) {
    const before = attempts.length;
    const err = await refusal(strict.fetch(url));
    t.equal(err.code, 'address_refused', `${url}: ${err.message}`);
    t.equal(attempts.length, before, `${url}: no connection attempted`);
  }
  t.same(seen, [], 'the receiver saw nothing');
});

t.test('host names resolving outside the public space are refused before any connection', async (t) => {
  for (const host of ['loopback.test', 'private.test', 'metadata.test', 'v6-loopback.test', 'mixed.test']) {
    const before = attempts.length;
    const err = await refusal(strict.fetch(`http://${host}:${port}/`));
    t.equal(err.code, 'address_refused', `${host}: ${err.message}`);
    t.equal(attempts.length, before, `${host}: no connection attempted`);
  }
  const mixed = await refusal(loopbackAllowed.fetch(`http://mixed.test:${port}/`));
  t.equal(
    mixed.code,
    'address_refused',
    'an answer holding one refused address is refused even when another is allowed',
  );
  const missing = await refusal(strict.fetch(`http://nowhere.test:${port}/`));
  t.equal(missing.code, 'dns_failure');
  t.same(seen, [], 'the receiver saw nothing');
});

t.test('an allowed CIDR is reached, by literal and by name, at the checked address', async (t) => {
  handler = (_req, res) => res.end('hello');
  const before = attempts.length;
  const byLiteral = await loopbackAllowed.fetch(`http://127.0.0.1:${port}/literal`);
  t.match(byLiteral, { status: 200, body: 'hello' });
  const byName = await loopbackAllowed.fetch(`http://loopback.test:${port}/name`, {
    method: 'POST',
    body: 'x',
    headers: { 'x-test': '1' },
  });
  t.match(byName, { status: 200, body: 'hello' });
  t.ok(
    attempts.slice(before).every((ip) => ip === '127.0.0.1'),
    'connections went to 127.0.0.1 only',
  );
  t.ok(attempts.length > before, 'the recorder sees connections');
  t.ok(seen.includes('GET /literal') && seen.includes('POST /name'));
  const stillRefused = await refusal(loopbackAllowed.fetch(`http://[::1]:${port}/`));
  t.equal(stillRefused.code, 'address_refused', '::1 is not inside 127.0.0.1/32');
});

t.test('a redirect is answered as it came, never followed', async (t) => {
  seen.length = 0;
  handler = (req, res) => {
    const target =
      req.url === '/to-metadata' ? 'http://169.254.169.254/latest/meta-data/' : `http://127.0.0.1:${port}/other`;
    res.writeHead(302, { location: target }).end();
  };
  const before = attempts.length;
  const toMetadata = await loopbackAllowed.fetch(`http://127.0.0.1:${port}/to-metadata`);
  t.equal(toMetadata.status, 302);
  t.equal(toMetadata.headers.location, 'http://169.254.169.254/latest/meta-data/');
  const sameHost = await loopbackAllowed.fetch(`http://127.0.0.1:${port}/to-self`);
  t.equal(sameHost.status, 302);
  t.same(seen, ['GET /to-metadata', 'GET /to-self'], 'no request followed a Location');
  t.notOk(attempts.slice(before).includes('169.254.169.254'), 'no connection to the redirect target');
  const viaFetch = await loopbackAllowed.guardedFetch(`http://127.0.0.1:${port}/to-metadata`);
  t.equal(viaFetch.status, 302, 'the fetch function does not follow either');
});

t.test('a DNS answer that changes between connections cannot reach a refused address', async (t) => {
  handler = (_req, res) => res.writeHead(200, { connection: 'close' }).end('pinned');
  // The first A question gets the allowed address, the next the refused one, and so on.
  const aQuestions = () => dns.questions.filter((q) => q === 'rebind.test A').length;
  dns.answers.set('rebind.test', () => (aQuestions() % 2 === 1 ? ['127.0.0.1'] : ['10.0.0.1']));
  const questionsBefore = dns.questions.filter((q) => q === 'rebind.test A').length;
  const before = attempts.length;
  const first = await loopbackAllowed.fetch(`http://rebind.test:${port}/`);
  t.equal(first.body, 'pinned');
  const second = await refusal(loopbackAllowed.fetch(`http://rebind.test:${port}/`));
  t.equal(second.code, 'address_refused');
  t.same(attempts.slice(before), ['127.0.0.1'], 'one connection, to the address that was checked');
  t.equal(
    dns.questions.filter((q) => q === 'rebind.test A').length - questionsBefore,
    2,
    'one resolution per connection: the address checked is the address used',
  );
});

t.test('time and size are bounded', async (t) => {
  handler = (req, res) => {
    if (req.url === '/silent') return;
    res.end('x'.repeat(5000));
  };
  const started = Date.now();
  const slow = await refusal(loopbackAllowed.fetch(`http://127.0.0.1:${port}/silent`, { timeoutMs: 200 }));
  t.equal(slow.code, 'timeout');
  t.ok(Date.now() - started < 1500, 'gave up near the deadline');
  const big = await refusal(loopbackAllowed.fetch(`http://127.0.0.1:${port}/big`, { maxBytes: 1000 }));
  t.equal(big.code, 'too_large');
  const fits = await loopbackAllowed.fetch(`http://127.0.0.1:${port}/big`, { maxBytes: 5000 });
  t.equal(fits.body.length, 5000);
});

t.test('only absolute http(s) URLs without credentials are fetched', async (t) => {
  for (const url of [
    'ftp://127.0.0.1/',
    'file:///etc/passwd',
    '/relative',
    `http://u:p@127.0.0.1:${port}/`,
    'not a url',
  ]) {
    t.equal((await refusal(loopbackAllowed.fetch(url))).code, 'invalid_request', url);
  }
  const err = await refusal(loopbackAllowed.fetch(`http://127.0.0.1:${port}/`, { headers: { 'x-bad': 'a\r\nb' } }));
  t.equal(err.code, 'invalid_request', 'a header value undici refuses');
});

t.test("jose's remote JWKS fetches through the guard", async (t) => {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
  handler = (_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  const jwt = await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuedAt().sign(privateKey);
  const allowedSet = createRemoteJWKSet(new URL(`http://127.0.0.1:${port}/jwks`), {
    [customFetch]: loopbackAllowed.guardedFetch,
  });
  t.ok((await jwtVerify(jwt, allowedSet)).payload.iat, 'verified with keys fetched through the guard');
  const before = attempts.length;
  const refusedSet = createRemoteJWKSet(new URL(`http://127.0.0.1:${port}/jwks`), {
    [customFetch]: strict.guardedFetch,
  });
  await t.rejects(jwtVerify(jwt, refusedSet), OutboundError, 'refused for a client without the CIDR');
  t.equal(attempts.length, before, 'no connection attempted');
});

t.test('the plugin serves the client under --outbound-allow-cidrs', async (t) => {
  handler = (_req, res) => res.end('via plugin');
  const open = await bootTestKernel({ plugins: [outboundPlugin], flags: { 'outbound-allow-cidrs': ['127.0.0.1/32'] } });
  t.teardown(() => open.close());
  t.equal((await open.kernel.service('outbound').fetch(`http://127.0.0.1:${port}/`)).body, 'via plugin');
  const closed = await bootTestKernel({ plugins: [outboundPlugin] });
  t.teardown(() => closed.close());
  t.equal(
    (await refusal(closed.kernel.service('outbound').fetch(`http://127.0.0.1:${port}/`))).code,
    'address_refused',
  );
  await t.rejects(
    bootTestKernel({ plugins: [outboundPlugin], flags: { 'outbound-allow-cidrs': ['10.0.0.0/33'] } }),
    /--outbound-allow-cidrs must list CIDRs/,
  );
});
