/**
 * Case 3, faults beyond the main database. A dependency (PostgreSQL, MariaDB, Redis) refused and
 * then blackholed through its FaultProxy: `/healthz` must answer 503 within 10 s, requests that
 * need it must fail with a clean 503 within 10 s (no hang, no 500), and once it is back the server
 * must serve again without a restart. Then the peers messages go to (SMTP server, SMS gateway,
 * webhook receiver), slow and down: the request that caused the message must take as long as with
 * the peer up, and what was queued must arrive once the peer is back.
 */
import { join } from 'node:path';
import type { FaultMode, FaultProxy } from '../test/helpers/fault-proxy.js';
import { FaultProxy as Proxy } from '../test/helpers/fault-proxy.js';
import {
  admin,
  call,
  health,
  login,
  profile,
  quantile,
  refresh,
  signup,
  verifiedUser,
  within,
  type Answer,
} from './client.js';
import { startSmsPeer, startSmtpPeer, startWebhookPeer } from './peers.js';
import { serverPorts, startServer } from './server-process.js';
import { openStack, type DbName } from './stack.js';
import type { Check } from './table.js';

const CASE = '3 faults';
const HEALTH_LIMIT_MS = 10_000;
const ANSWER_LIMIT_MS = 10_000;
const RECOVERY_LIMIT_MS = 30_000;

interface Probe {
  name: string;
  run(): Promise<Answer>;
}

const fmt = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const said = (a: Answer) => (a.status ? String(a.status) : (a.failure ?? 'no answer'));

/** Refuse, then blackhole, one dependency; each followed by its recovery. */
async function outage(
  base: string,
  proxy: FaultProxy,
  dep: string,
  target: string,
  probes: Probe[],
  recovered: () => Promise<boolean>,
): Promise<Check[]> {
  const checks: Check[] = [];
  for (const mode of ['refuse', 'blackhole'] as FaultMode[]) {
    await proxy.set(mode);
    const unhealthy = await within(HEALTH_LIMIT_MS + 5_000, async () => (await health(base)).status === 503);
    checks.push({
      case: CASE,
      target,
      check: `${dep} ${mode}: /healthz 503 within 10 s`,
      held: unhealthy !== null && unhealthy <= HEALTH_LIMIT_MS,
      detail: unhealthy === null ? 'no 503 within 15 s' : `503 after ${fmt(unhealthy)}`,
    });
    const answers = await Promise.all(probes.map(async (p) => ({ name: p.name, a: await p.run() })));
    const bad = answers.filter(({ a }) => a.status !== 503 || a.ms > ANSWER_LIMIT_MS);
    checks.push({
      case: CASE,
      target,
      check: `${dep} ${mode}: requests needing it answer 503 within 10 s`,
      held: bad.length === 0,
      detail: answers.map(({ name, a }) => `${name} ${said(a)} in ${fmt(a.ms)}`).join(', '),
    });
    await proxy.set('up');
    const back = await within(RECOVERY_LIMIT_MS + 30_000, recovered, 500);
    checks.push({
      case: CASE,
      target,
      check: `${dep} back after ${mode}: serves again without restart within 30 s`,
      held: back !== null && back <= RECOVERY_LIMIT_MS,
      detail: back === null ? 'not serving 60 s later' : `healthy and logging in after ${fmt(back)}`,
    });
  }
  return checks;
}

/** One server on `db` with Redis, both behind proxies; the outage of each proxied dependency. */
export async function dependencyFaults(db: DbName): Promise<Check[]> {
  const stack = await openStack(db, { redis: true, label: `faults-${db}` });
  const log = join(stack.dir, 'server.log');
  const server = await startServer(await serverPorts(), stack.flags, log);
  const checks: Check[] = [];
  try {
    const base = server.url;
    const email = `faults-${db}@example.com`;
    const made = await signup(base, email);
    if (made.status !== 200) throw new Error(`signup: ${made.status} ${JSON.stringify(made.body)}`);
    const first = await login(base, email);
    const access = String(first.body.access_token);
    let refreshToken = String(first.body.refresh_token);
    const recovered = async () =>
      (await health(base, 5_000)).status === 200 && (await login(base, email)).status === 200;
    const probes: Probe[] = [
      { name: 'login', run: () => login(base, email, 30_000) },
      { name: 'profile', run: () => profile(base, access, 30_000) },
      {
        name: 'refresh',
        run: async () => {
          const a = await refresh(base, refreshToken, 30_000);
          if (a.status === 200) refreshToken = String(a.body.refresh_token);
          return a;
        },
      },
    ];
    const targets: [string, FaultProxy | undefined][] = [
      ['Redis', stack.redisProxy],
      [db === 'postgres' ? 'PostgreSQL' : db === 'mariadb' ? 'MariaDB' : 'SQLite', stack.dbProxy],
    ];
    for (const [dep, proxy] of targets) {
      if (!proxy) continue;
      checks.push(...(await outage(base, proxy, dep, `${db}+redis`, probes, recovered)));
      // The refresh token may have been spent by a request whose answer was lost: start anew.
      const again = await login(base, email);
      if (again.status === 200) refreshToken = String(again.body.refresh_token);
    }
  } finally {
    await server.stop();
    await stack.dispose();
  }
  return checks;
}

const PEER_SLOW_MS = 5_000;
const TRIGGERS = 6;

/**
 * The outboxes: SMTP, SMS gateway and webhook receiver each slow and down, and the latency of
 * the request that causes the message each time, against all peers up.
 */
export async function peerFaults(): Promise<Check[]> {
  const stack = await openStack('sqlite', { redis: true, label: 'peers' });
  const smtp = await startSmtpPeer();
  const sms = await startSmsPeer();
  const hooks = await startWebhookPeer();
  const smtpProxy = await Proxy.start('127.0.0.1', smtp.port);
  const smsProxy = await Proxy.start('127.0.0.1', sms.port);
  const hookProxy = await Proxy.start('127.0.0.1', hooks.port);
  const server = await startServer(
    await serverPorts(),
    {
      ...stack.flags,
      'smtp-host': '127.0.0.1',
      'smtp-port': smtpProxy.port,
      'email-retry-delay-ms': 500,
      'email-limit-per-ip': 1_000_000,
      'email-limit-per-address': 1_000,
      'enable-email-verification': true,
      'sms-account-sid': 'AC0123456789',
      'sms-api-key': 'SK-reliability',
      'sms-api-secret': 'sms-secret',
      'sms-sender': '+15550001111',
      'sms-gateway-url': `http://127.0.0.1:${smsProxy.port}`,
      'sms-limit-per-ip': 1_000_000,
    },
    join(stack.dir, 'server.log'),
  );
  const base = server.url;
  const checks: Check[] = [];
  try {
    await admin(base, 'add_webhook', {
      event_name: 'user.signup',
      endpoint: `http://127.0.0.1:${hookProxy.port}/hook`,
      enabled: true,
    });
    let n = 0;
    const signups: string[] = [];
    const mailTrigger = async () => {
      const email = `peer-${n++}@example.com`;
      const a = await signup(base, email, {}, 30_000);
      if (a.status === 200) signups.push(email);
      return a;
    };
    let texts = 0;
    const smsTrigger = async () => {
      const i = n++;
      const made = await verifiedUser(base, `sms-${i}@example.com`, { phone_number: `+1555${String(2000000 + i)}` });
      if (made.id) signups.push(`sms-${i}@example.com`);
      if (made.status !== 200) return made;
      const a = await call(
        base,
        '/v1/sms_otp_mfa_setup',
        {},
        { bearer: String(made.body.access_token), timeoutMs: 30_000 },
      );
      if (a.status === 200) texts++;
      return a;
    };
    const measure = async (trigger: () => Promise<Answer>) => {
      const answers: Answer[] = [];
      for (let i = 0; i < TRIGGERS; i++) answers.push(await trigger());
      return answers;
    };
    const summary = (answers: Answer[]) =>
      `p50 ${quantile(
        answers.map((a) => a.ms),
        0.5,
      ).toFixed(0)} ms, max ${Math.max(...answers.map((a) => a.ms)).toFixed(0)} ms, statuses ${[
        ...new Set(answers.map(said)),
      ].join('/')}`;
    // Warm up, then the baseline with every peer up.
    await measure(mailTrigger);
    await measure(smsTrigger);
    const baseMail = await measure(mailTrigger);
    const baseSms = await measure(smsTrigger);
    checks.push({
      case: CASE,
      target: 'sqlite+redis',
      check: 'peers up: latency of the triggering request (baseline)',
      held: [...baseMail, ...baseSms].every((a) => a.status === 200),
      detail: `signup (mail + webhook) ${summary(baseMail)}; sms_otp_mfa_setup ${summary(baseSms)}`,
    });
    const baseline = {
      mail: quantile(
        baseMail.map((a) => a.ms),
        0.5,
      ),
      sms: quantile(
        baseSms.map((a) => a.ms),
        0.5,
      ),
    };
    type Scenario = { peer: string; state: string; apply(): Promise<void>; undo(): Promise<void>; sms: boolean };
    const slow = (p: { delayMs: number }) => async () => void (p.delayMs = PEER_SLOW_MS);
    const fast = (p: { delayMs: number }) => async () => void (p.delayMs = 0);
    const scenarios: Scenario[] = [
      { peer: 'SMTP server', state: 'slow (5 s per message)', apply: slow(smtp), undo: fast(smtp), sms: false },
      {
        peer: 'SMTP server',
        state: 'down (refused)',
        apply: () => smtpProxy.set('refuse'),
        undo: () => smtpProxy.set('up'),
        sms: false,
      },
      {
        peer: 'SMTP server',
        state: 'hung (blackholed)',
        apply: () => smtpProxy.set('blackhole'),
        undo: () => smtpProxy.set('up'),
        sms: false,
      },
      { peer: 'webhook receiver', state: 'slow (5 s per answer)', apply: slow(hooks), undo: fast(hooks), sms: false },
      {
        peer: 'webhook receiver',
        state: 'down (refused)',
        apply: () => hookProxy.set('refuse'),
        undo: () => hookProxy.set('up'),
        sms: false,
      },
      { peer: 'SMS gateway', state: 'slow (5 s per answer)', apply: slow(sms), undo: fast(sms), sms: true },
      {
        peer: 'SMS gateway',
        state: 'down (refused)',
        apply: () => smsProxy.set('refuse'),
        undo: () => smsProxy.set('up'),
        sms: true,
      },
    ];
    for (const s of scenarios) {
      await s.apply();
      const answers = await measure(s.sms ? smsTrigger : mailTrigger);
      await s.undo();
      const p50 = quantile(
        answers.map((a) => a.ms),
        0.5,
      );
      const ref = s.sms ? baseline.sms : baseline.mail;
      checks.push({
        case: CASE,
        target: 'sqlite+redis',
        check: `${s.peer} ${s.state}: triggering request neither slowed nor failed`,
        held: answers.every((a) => a.status === 200) && p50 <= ref * 1.5 + 50,
        detail: `${s.sms ? 'sms_otp_mfa_setup' : 'signup'} ${summary(answers)} (baseline p50 ${ref.toFixed(0)} ms)`,
      });
    }
    // What the outboxes held arrives once the peers are back.
    const mails = () => new Set(smtp.accepted.flatMap((m) => m.to)).size;
    const deliveries = () => new Set(hooks.accepted.map((d) => d.deliveryId)).size;
    const wanted = signups.length;
    const all = await within(90_000, async () => mails() >= wanted && deliveries() >= wanted, 1_000);
    checks.push({
      case: CASE,
      target: 'sqlite+redis',
      check: 'queued mail and webhook deliveries arrive once the peers are back',
      held: all !== null,
      detail: `${mails()}/${wanted} addresses mailed, ${deliveries()}/${wanted} webhook deliveries${
        all === null ? ' after 90 s' : ` (${fmt(all)} after the last fault)`
      }; ${sms.accepted.length} texts accepted for ${texts} acknowledged SMS setups`,
    });
  } finally {
    await server.stop();
    await Promise.all([smtpProxy.close(), smsProxy.close(), hookProxy.close()]);
    await Promise.all([smtp.close(), sms.close(), hooks.close()]);
    await stack.dispose();
  }
  return checks;
}
