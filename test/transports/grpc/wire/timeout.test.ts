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
});

t.test('more than eight digits, no unit, an unknown unit or a repeated header are refused', async (t) => {
  for (const bad of ['123456789S', '100', '10s', '-1S', '', ['1S', '2S']]) {
    t.throws(() => parseTimeout(bad), { status: 3, message: /invalid grpc-timeout/ }, JSON.stringify(bad));
  }
});
