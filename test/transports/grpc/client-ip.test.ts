/** The caller IP of a gRPC call: the peer, and x-forwarded-for only through trusted proxies. */
import t from 'tap';
import { clientIp, parseTrustedProxies, socketAddress } from '../../../transports/grpc/client-ip.js';

t.test('socket addresses become client addresses', async (t) => {
  t.equal(socketAddress('127.0.0.1'), '127.0.0.1');
  t.equal(socketAddress('::1'), '::1');
  t.equal(socketAddress('::ffff:10.1.2.3'), '10.1.2.3', 'IPv4 clients of a dual-stack listener are plain IPv4');
  t.equal(socketAddress('2001:db8::1'), '2001:db8::1');
  t.equal(socketAddress(undefined), 'unknown', 'a socket already closed has no address');
});

t.test('x-forwarded-for is ignored unless the peer is a trusted proxy', async (t) => {
  t.equal(clientIp('198.51.100.9', '203.0.113.7', []), '198.51.100.9', 'no trusted proxies: the connection decides');
  t.equal(
    clientIp('198.51.100.9', '203.0.113.7', parseTrustedProxies(['10.0.0.0/8'])),
    '198.51.100.9',
    'untrusted peer',
  );
});

t.test('through trusted proxies the right-most untrusted hop wins', async (t) => {
  const proxies = parseTrustedProxies(['10.0.0.0/8', '127.0.0.1']);
  t.equal(clientIp('10.0.0.5', '203.0.113.7', proxies), '203.0.113.7');
  t.equal(
    clientIp('10.0.0.5', '1.2.3.4, 203.0.113.7, 10.9.9.9', proxies),
    '203.0.113.7',
    'a forged left-most entry is not believed',
  );
  t.equal(clientIp('127.0.0.1', 'garbage, 203.0.113.7', proxies), '203.0.113.7');
  t.equal(clientIp('127.0.0.1', '203.0.113.7, garbage', proxies), '127.0.0.1', 'an unparsable hop stops the walk');
  t.equal(clientIp('10.0.0.5', '10.1.1.1', proxies), '10.1.1.1', 'all trusted: the left-most known hop');
});
