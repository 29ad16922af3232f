/** grpc-timeout values (PROTOCOL-HTTP2.md "Timeout"): every unit, and the malformed ones refused. */
import t from 'tap';
import { parseTimeout } from '../../../../transports/grpc/wire/timeout.js';

t.test('each unit converts to milliseconds', async (t) => {
  t.equal(parseTimeout(undefined), undefined, 'no header, no deadline');
  t.equal(parseTimeout('2H'), 7_200_000);
  t.equal(parseTimeout('3M'), 180_000);
  t.equal(parseTimeout('5S'), 5000);
  t.equal(parseTimeout('250m'), 250);
  t.equal(parseTimeout('1500u'), 1.5);
  t.equal(parseTimeout('99999999n'), 99.999999);
  // Past what a Node timer holds (2^31-1 ms, ~24.8 days) a deadline is none: a timer would fire
  // after 1 ms instead (a review finding).
  t.equal(parseTimeout('596H'), 596 * 3_600_000, 'just under the timer limit');
  for (const far of ['99999999H', '99999999M', '2592000S']) t.equal(parseTimeout(far), undefined, far);
});

t.test('more than eight digits, no unit, an unknown unit or a repeated header are refused', async (t) => {
  for (const bad of ['123456789S', '100', '10s', '-1S', '', ['1S', '2S']]) {
    t.throws(() => parseTimeout(bad), { status: 3, message: /invalid grpc-timeout/ }, JSON.stringify(bad));
  }
});
