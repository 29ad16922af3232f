/**
 * The document resolver on the guarded outbound client, with host names answered by a local DNS
 * server: a document URL whose host resolves to 127.0.0.1, 10.0.0.1, 169.254.169.254 or ::1 is
 * refused before any connection is attempted, and a document host that redirects to the metadata
 * address is refused without the redirect being followed. Every connection attempt of this
 * process is recorded (Node's `net.client.socket` diagnostics channel), so "before any
 * connection" is checked.
 */
import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import t from 'tap';
import { createDocumentResolver } from '../../../plugins/client-metadata/resolver.js';
import { createAddressPolicy, createOutboundClient } from '../../../plugins/outbound/index.js';
import { startLocalDns } from '../outbound/local-dns.js';
import { startDocumentHost } from './document-host.js';

const attempts: string[] = [];
subscribe('net.client.socket', (message) => {
  (message as { socket: Socket }).socket.on('connectionAttempt', (ip: string) => attempts.push(ip));
});

const dns = await startLocalDns();
t.teardown(() => dns.close());
dns.answers.set('loopback.test', ['127.0.0.1']);
dns.answers.set('private.test', ['10.0.0.1']);
dns.answers.set('metadata.test', ['169.254.169.254']);
dns.answers.set('v6-loopback.test', ['::1']);
dns.answers.set('localhost', ['127.0.0.1']);

const host = await startDocumentHost();
t.teardown(() => host.close());
const port = new URL(host.url).port;

const resolverWith = (allow: string[]) => {
  const outbound = createOutboundClient({ policy: createAddressPolicy(allow), resolve: dns.resolver });
  t.teardown(() => outbound.close());
  return createDocumentResolver({ outbound, allowedDomains: [] });
};

t.test('host names resolving to refused addresses are never connected to', async (t) => {
  const strict = resolverWith([]);
  for (const [name, address] of [
    ['loopback.test', '127.0.0.1'],
    ['private.test', '10.0.0.1'],
    ['metadata.test', '169.254.169.254'],
    ['v6-loopback.test', '::1'],
  ]) {
    const before = attempts.length;
    const outcome = await strict.resolve(`https://${name}:${port}/client.json`);
    t.match(outcome, { error: new RegExp(`could not be fetched: ${name} resolves to ${address} is a \\w+ address`) });
    t.equal(attempts.length, before, `${name}: no connection attempted`);
  }
  t.equal(host.hits('/client.json'), 0);
});

t.test('a redirect towards the metadata address is refused, not followed', async (t) => {
  const allowed = resolverWith(['127.0.0.1/32']);
  host.serve('/to-metadata.json', {
    status: 302,
    headers: { location: 'https://metadata.test/latest/client.json' },
    body: '',
  });
  const before = attempts.length;
  const outcome = await allowed.resolve(`${host.url}/to-metadata.json`);
  t.match(outcome, { error: /HTTP 302; redirects are not followed/ });
  t.equal(host.hits('/to-metadata.json'), 1, 'the document host was asked');
  t.same(
    attempts.slice(before).filter((ip) => ip !== '127.0.0.1'),
    [],
    'no connection went anywhere but the allowed document host',
  );
});

t.test('an allowed host serves a document; concurrent requests share one fetch', async (t) => {
  const allowed = resolverWith(['127.0.0.1/32']);
  const clientId = host.serveJson('/shared.json', {
    client_id: `${host.url}/shared.json`,
    redirect_uris: ['https://app.example/cb'],
  });
  const outcomes = await Promise.all([1, 2, 3].map(() => allowed.resolve(clientId)));
  for (const outcome of outcomes) t.match(outcome, { client: { clientId, selfRegistered: true } });
  t.equal(host.hits('/shared.json'), 1, 'one fetch for three lookups');
});
