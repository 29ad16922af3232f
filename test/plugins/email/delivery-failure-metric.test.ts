/**
 * Mail delivery failures in /metrics: with a real SMTP server that refuses attempts,
 * `latchkey_mail_delivery_failures_total` counts each refused attempt that will be retried
 * (`outcome="retry"`) and each mail given up after --email-max-attempts (`outcome="failed"`).
 */
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { mailFlags, rest, signupInput } from './helpers.js';
import { startSmtpSink } from './smtp-sink.js';

const sink = await startSmtpSink();
const server = await startTestServer({ flags: { ...mailFlags(sink), 'email-max-attempts': 2 } });
t.teardown(async () => {
  await server.close();
  await sink.close();
});

const counted = async (outcome: string): Promise<number> => {
  const text = await (await fetch(`${server.metricsUrl}/metrics`)).text();
  const found = new RegExp(`^latchkey_mail_delivery_failures_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text);
  return Number(found?.[1] ?? 0);
};
const until = async (what: () => Promise<boolean>, ms = 30_000) => {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

t.test('the metric is declared before anything fails', async (t) => {
  const text = await (await fetch(`${server.metricsUrl}/metrics`)).text();
  t.match(text, /^# TYPE latchkey_mail_delivery_failures_total counter$/m);
  t.equal(await counted('failed'), 0);
});

t.test('a mail refused every time counts one retry, then one failure', async (t) => {
  await rest(server, 'signup', signupInput('metric-fails@example.com'));
  sink.refuseNext(2);
  t.equal((await rest(server, 'forgot_password', { email: 'metric-fails@example.com' })).status, 200);
  await until(async () => (await counted('failed')) === 1);
  t.equal(await counted('retry'), 1, 'the first refusal was retried');
  t.equal(sink.refused, 2);
});

t.test('a mail that gets through on its second attempt counts a retry only', async (t) => {
  await rest(server, 'signup', signupInput('metric-late@example.com'));
  sink.refuseNext(1);
  t.equal((await rest(server, 'forgot_password', { email: 'metric-late@example.com' })).status, 200);
  await sink.next('metric-late@example.com');
  t.equal(await counted('retry'), 2);
  t.equal(await counted('failed'), 1, 'no new failure');
});
