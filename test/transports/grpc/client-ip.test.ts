/** The caller IP of a gRPC call: the peer, and x-forwarded-for only through trusted proxies. */
import t from 'tap';
import { clientIp, parseTrustedProxies, peerAddress } from '../../../transports/grpc/client-ip.js';

t.test('peer strings from grpc-js become addresses', async (t) => {
  t.equal(peerAddress('127.0.0.1:51234'), '127.0.0.1');
  t.equal(peerAddress('::1:51234'), '::1', 'grpc-js does not bracket IPv6 peers');
  t.equal(peerAddress('[2001:db8::1]:443'), '2001:db8::1');
  t.equal(peerAddress('::ffff:10.1.2.3:9000'), '10.1.2.3', 'IPv4-mapped addresses are plain IPv4');
  t.equal(peerAddress('ipv4:192.0.2.1:80'), '192.0.2.1');
  t.equal(peerAddress('unknown'), 'unknown');
});

t.test('x-forwarded-for is ignored unless the peer is a trusted proxy', async (t) => {
  t.equal(clientIp('198.51.100.9', '203.0.113.7', []), '198.51.100.9', 'no trusted proxies: the connection decides');
  t.equal(clientIp('198.51.100.9', '203.0.113.7', parseTrustedProxies(['10.0.0.0/8'])), '198.51.100.9', 'untrusted peer');
});

t.test('through trusted proxies the right-most untrusted hop wins', async (t) => {
  const proxies = parseTrustedProxies(['10.0.0.0/8', '127.0.0.1']);
  t.equal(clientIp('10.0.0.5', '203.0.113.7', proxies), '203.0.113.7');
  t.equal(clientIp('10.0.0.5', '1.2.3.4, 203.0.113.7, 10.9.9.9', proxies), '203.0.113.7', 'a forged left-most entry is not believed');
  t.equal(clientIp('127.0.0.1', 'garbage, 203.0.113.7', proxies), '203.0.113.7');
  t.equal(clientIp('127.0.0.1', '203.0.113.7, garbage', proxies), '127.0.0.1', 'an unparsable hop stops the walk');
  t.equal(clientIp('10.0.0.5', '10.1.1.1', proxies), '10.1.1.1', 'all trusted: the left-most known hop');
});
