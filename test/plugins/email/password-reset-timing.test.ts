/**
 * `forgot_password` answers known and unknown addresses in the same time (no enumeration by
 * timing): every answer waits for the same floor, and the mail of a known address is queued
 * after the answer has left.
 *
 * The server's mail goes nowhere (nothing listens on its SMTP port, and no retry comes within the
 * test): an in-process SMTP sink parsing mail would otherwise share this process's event loop with
 * the calls being timed. Delivery itself is password-reset.test.ts's.
 */
import t from 'tap';
import { freePort } from '../../helpers/ports.js';
import { startTestServer } from '../../helpers/server.js';
import { admin, mailFlags, rest, signupInput } from './helpers.js';

const SENT = 'Please check your inbox! We have sent a password reset link.';
const quiet = await startTestServer({
  flags: { ...mailFlags({ port: await freePort() }), 'email-retry-delay-ms': 600_000, 'email-limit-per-address': 1000 },
});
t.teardown(() => quiet.close());

t.test('known and unknown addresses answer alike, in the same time', async (t) => {
  await rest(quiet, 'signup', signupInput('timed@example.com'));
  const times: Record<'known' | 'unknown', number[]> = { known: [], unknown: [] };
  for (let i = 0; i < 5; i++) {
    for (const kind of ['known', 'unknown'] as const) {
      const started = performance.now();
      const r = await rest(quiet, 'forgot_password', {
        email: kind === 'known' ? 'timed@example.com' : `ghost${i}@example.com`,
      });
      times[kind].push(performance.now() - started);
      // The mail of a known address is queued after its answer: let that work end before the next
      // call is timed, so it is not counted against whichever call comes next.
      await new Promise((r) => setTimeout(r, 250));
      t.equal(r.status, 200);
      t.same(r.body, { message: SENT });
    }
  }
  // Medians: on a loaded machine one slow turn of the event loop should not decide it.
  const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  t.ok(Math.min(...times.known, ...times.unknown) >= 290, 'every answer waits for the floor');
  t.ok(
    Math.abs(median(times.known) - median(times.unknown)) < 40,
    `medians ${median(times.known)} / ${median(times.unknown)} ms`,
  );
  const queued = await rest<{ entries: { recipient: string }[] }>(quiet, 'admin/email_outbox', {}, admin);
  t.same(
    [...new Set(queued.body.entries.map((e) => e.recipient))],
    ['timed@example.com'],
    'mail is queued for the account only',
  );
  t.equal(queued.body.entries.length, 5);
});
