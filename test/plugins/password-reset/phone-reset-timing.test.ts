/**
 * `forgot_password` with a phone number answers known and unknown numbers alike, in the same time
 * (no enumeration by timing): every answer waits for the same floor, and the code of a known
 * number is issued and texted after the answer has left. The texts go to a Twilio-shaped gateway
 * on 127.0.0.1, which only the known number's requests reach.
 */
import t from 'tap';
import { rest } from '../email/helpers.js';
import { startPhoneServer } from '../phone-verification/helpers.js';

const SENT = 'Please enter the OTP sent to your phone number and change your password.';
const { server, gateway, close } = await startPhoneServer();
t.teardown(close);

t.test('known and unknown numbers answer alike, in the same time', async (t) => {
  const known = '+15559100001';
  const signed = await rest(server, 'signup', {
    phone_number: known,
    password: 'Timed-phone-1',
    confirm_password: 'Timed-phone-1',
  });
  t.equal(signed.status, 200);
  const times: Record<'known' | 'unknown', number[]> = { known: [], unknown: [] };
  // Five per kind: the per-number limit allows five texts to the known number in its window.
  for (let i = 0; i < 5; i++) {
    for (const kind of ['known', 'unknown'] as const) {
      const started = performance.now();
      const r = await rest(server, 'forgot_password', {
        phone_number: kind === 'known' ? known : `+1555910090${i}`,
      });
      times[kind].push(performance.now() - started);
      t.equal(r.status, 200);
      t.same(r.body, { message: SENT, should_show_mobile_otp_screen: true });
      // The known number's code is texted after its answer: wait for the text, so that work is
      // not counted against whichever call comes next (the unknown number's wait matches it).
      if (kind === 'known') await gateway.next(known);
      else await new Promise((r) => setTimeout(r, 100));
    }
  }
  // Medians: on a loaded machine one slow turn of the event loop should not decide it.
  const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
  t.ok(Math.min(...times.known, ...times.unknown) >= 290, 'every answer waits for the floor');
  t.ok(
    Math.abs(median(times.known) - median(times.unknown)) < 40,
    `medians ${median(times.known).toFixed(1)} / ${median(times.unknown).toFixed(1)} ms`,
  );
  t.same([...new Set(gateway.texts.map((m) => m.to))], [known], 'codes are texted to the account’s number only');
  t.equal(gateway.texts.length, 5);
});
