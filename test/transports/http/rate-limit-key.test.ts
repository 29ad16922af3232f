/** Which bucket a request counts against (a bucket per IPv6 address or per forwarded port would be no limit). */
import t from 'tap';
import { IpRateLimiter, rateLimitKey } from '../../../transports/http/rate-limit.js';

t.test('ports, IPv4-mapped forms and the rest of an IPv6 /64 are the same client', async (t) => {
  t.equal(rateLimitKey('10.0.1.1:5555'), '10.0.1.1');
  t.equal(rateLimitKey('10.0.1.1'), '10.0.1.1');
  t.equal(rateLimitKey('::ffff:10.0.1.1'), '10.0.1.1');
  t.equal(rateLimitKey('2001:db8::1'), rateLimitKey('2001:db8::7'));
  t.equal(rateLimitKey('[2001:db8::1]:443'), rateLimitKey('2001:db8:0:0:ffff::2'));
  t.not(rateLimitKey('2001:db8:0:1::1'), rateLimitKey('2001:db8::1'), 'another /64 is another client');
  t.equal(rateLimitKey('not-an-ip'), 'not-an-ip');
});

t.test('seven addresses of one /64 share one limit of five', async (t) => {
  const limiter = new IpRateLimiter(5);
  const answers = Array.from({ length: 7 }, (_, i) => limiter.hit(rateLimitKey(`2001:db8::${i + 1}`)));
  t.same(answers.slice(0, 5), [0, 0, 0, 0, 0]);
  t.ok(answers[5] > 0 && answers[6] > 0, 'the sixth and seventh are limited');
});
