/**
 * Domain verification against a real DNS server on 127.0.0.1 (txt-dns.ts) serving the TXT
 * records each case sets (a domain goes from pending to verified, or stays pending for a retry):
 * an exact match verifies; near misses, a missing record and a server that never answers fail
 * with `dns verification failed` and keep the challenge for a retry; IDNA forms of one name are
 * one domain; guards refuse TLDs, public suffixes, consumer mail and non-domains;
 * one owner per domain; audit events name the method and never the token; per-org limits.
 */
import t from 'tap';
import type { DomainEvent } from '../../../core/events.js';
import { accountPlugins, basePlugins } from '../../../plugins/default.js';
import { createOrgDomainsPlugin } from '../../../plugins/org-domains/index.js';
import { organizationsPlugin } from '../../../plugins/organizations/index.js';
import { OrgDomainEntity } from '../../../plugins/org-domains/entities.js';
import { bootTestKernel, testContext } from '../../helpers/kernel.js';
import { startTxtDns } from './txt-dns.js';

const ADMIN = 'domains-admin-secret';
const TIMEOUT_MS = 300;

t.test('organization domains', async (t) => {
  const dns = await startTxtDns();
  t.teardown(() => dns.close());
  const { kernel, close } = await bootTestKernel({
    plugins: [
      ...basePlugins,
      ...accountPlugins,
      organizationsPlugin,
      createOrgDomainsPlugin({ dnsTimeoutMs: TIMEOUT_MS, limitPerMinute: 50 }),
    ],
    flags: {
      url: 'http://localhost:9999',
      'admin-secret': ADMIN,
      'client-id': 'app',
      'client-secret': 'app-secret',
      'jwt-type': 'HS256',
      'jwt-secret': 'domains-test-secret-0123456789abcdef',
      'dns-resolver': [dns.address],
    },
  });
  t.teardown(close);
  const call = <T = Record<string, unknown>>(name: string, input: unknown) =>
    kernel.invoke(name, testContext(kernel, { headers: { 'x-service-admin-secret': ADMIN } }), input) as Promise<T>;
  const events: DomainEvent[] = [];
  kernel.events.on('org_domain.verified', (e) => void events.push(e));
  const org = await call<{ id: string }>('_create_organization', { name: 'acme' });
  const rival = await call<{ id: string }>('_create_organization', { name: 'rival' });

  type Challenge = { domain: string; record_type: string; record_name: string; record_value: string };
  const request = (domain: string, orgId = org.id) => call<Challenge>('_request_org_domain', { org_id: orgId, domain });
  const verify = (domain: string, orgId = org.id) =>
    call<{ domain: string; org_id: string; verified_at: number }>('_verify_org_domain', { org_id: orgId, domain });

  t.test('the challenge has the documented shape and is stable while pending', async (t) => {
    const c = await request('shape.example');
    t.equal(c.domain, 'shape.example');
    t.equal(c.record_type, 'TXT');
    t.equal(c.record_name, '_service-challenge.shape.example');
    t.match(c.record_value, /^service-domain-verification=[A-Z2-7]{52}$/, '32 bytes in base32');
    t.equal((await request('shape.example')).record_value, c.record_value, 'asking again gives the same value');
    t.equal(await kernel.storage.em().count(OrgDomainEntity, { domain: 'shape.example' }), 0, 'pending is not a row');
  });

  t.test('an exact TXT match verifies, with a dns_txt audit event and no token in it', async (t) => {
    const c = await request('exact.example');
    dns.records.set(c.record_name, ['v=spf1 -all', c.record_value]);
    const before = events.length;
    const verified = await verify('exact.example');
    t.match(verified, { domain: 'exact.example', org_id: org.id });
    t.ok(verified.verified_at > 0);
    t.ok(dns.questions.includes(`${c.record_name} TXT`), 'a TXT question, nothing else');
    t.notOk(
      dns.questions.some((q) => !q.endsWith(' TXT')),
      'no other record type is asked',
    );
    await kernel.events.drain();
    const event = events.slice(before).find((e) => e.payload.domain === 'exact.example');
    t.match(event?.payload, { method: 'dns_txt', org_id: org.id, domain: 'exact.example', actor_kind: 'admin' });
    const token = c.record_value.split('=')[1];
    t.notOk(JSON.stringify(event).includes(token), 'the token is never in the event');
    t.strictSame(await verify('exact.example'), verified, 'verifying again is a no-op success');
  });

  t.test('a value split into character-strings is read joined', async (t) => {
    const c = await request('split.example');
    dns.records.set(c.record_name, [[c.record_value.slice(0, 20), c.record_value.slice(20)]]);
    t.match(await verify('split.example'), { domain: 'split.example' });
  });

  t.test('near misses fail and keep the challenge; the exact value then verifies', async (t) => {
    const c = await request('near.example');
    const token = c.record_value.split('=')[1];
    const misses = [
      `${c.record_value} `,
      ` ${c.record_value}`,
      `${c.record_value}x`,
      c.record_value.slice(0, -1),
      `service-domain-verification=${token.toLowerCase()}`,
      `SERVICE-DOMAIN-VERIFICATION=${token}`,
      token,
      `prefix ${c.record_value}`,
      `service-domain-verification="${token}"`,
    ];
    for (const value of misses) {
      dns.records.set(c.record_name, [value]);
      await t.rejects(
        verify('near.example'),
        { code: 'failed_precondition', message: 'dns verification failed' },
        value,
      );
    }
    dns.records.delete(c.record_name);
    dns.records.set(`_service-challenge.other.example`, [c.record_value]);
    await t.rejects(verify('near.example'), { message: 'dns verification failed' }, 'record missing');
    dns.records.set(`near.example`, [c.record_value]);
    await t.rejects(verify('near.example'), { message: 'dns verification failed' }, 'record at the domain itself');
    t.equal((await request('near.example')).record_value, c.record_value, 'the challenge is kept');
    dns.records.set(c.record_name, [c.record_value]);
    t.match(await verify('near.example'), { domain: 'near.example' }, 'a retry with the exact value verifies');
  });

  t.test('a server that never answers fails within the timeout, challenge kept', async (t) => {
    const c = await request('silent.example');
    dns.silent.add(c.record_name);
    const started = Date.now();
    await t.rejects(verify('silent.example'), { message: 'dns verification failed' });
    const took = Date.now() - started;
    t.ok(took >= TIMEOUT_MS - 50 && took < TIMEOUT_MS + 2000, `gave up after ${took} ms`);
    dns.silent.delete(c.record_name);
    dns.records.set(c.record_name, [c.record_value]);
    t.match(await verify('silent.example'), { domain: 'silent.example' });
  });

  t.test('IDNA forms of one name are one domain, looked up in punycode', async (t) => {
    const c = await request('Bücher.Example.');
    t.equal(c.domain, 'xn--bcher-kva.example');
    t.equal(c.record_name, '_service-challenge.xn--bcher-kva.example');
    t.equal((await request('xn--bcher-kva.example')).record_value, c.record_value, 'same pending challenge');
    t.equal((await request('BÜCHER.example')).record_value, c.record_value, 'case folded (UTS-46)');
    dns.records.set(c.record_name, [c.record_value]);
    t.match(await verify('XN--BCHER-KVA.EXAMPLE'), { domain: 'xn--bcher-kva.example' });
    await t.rejects(verify('bücher.example', rival.id), {
      code: 'already_exists',
      message: 'domain_already_verified_by_another_org',
    });
  });

  t.test('guards refuse what no organization may claim, before any DNS question', async (t) => {
    const asked = dns.questions.length;
    for (const domain of [
      'com',
      'co.uk',
      'github.io',
      'gmail.com',
      'mail.gmail.com',
      'outlook.com',
      'https://acme.example',
      'acme.example/path',
      'acme.example:443',
      '*.acme.example',
      'user@acme.example',
      '192.0.2.1',
      'acme..example',
      '-acme.example',
      'ac me.example',
      'a'.repeat(64) + '.example',
    ]) {
      await t.rejects(request(domain), { code: 'invalid_argument' }, domain);
      await t.rejects(verify(domain), { code: 'invalid_argument' }, domain);
    }
    t.equal(dns.questions.length, asked, 'no lookup was made');
    t.match(await request('sub.acme.co.uk'), { domain: 'sub.acme.co.uk' }, 'a name under a public suffix is fine');
  });

  t.test('one owner per domain; trusted assertion; deletion frees it', async (t) => {
    const asserted = await call('_add_verified_org_domain', { org_id: rival.id, domain: 'rival.example' });
    t.match(asserted, { domain: 'rival.example', org_id: rival.id });
    await kernel.events.drain();
    t.match(events.at(-1)?.payload, { method: 'trusted_assert', domain: 'rival.example' });
    await t.rejects(call('_add_verified_org_domain', { org_id: org.id, domain: 'rival.example' }), {
      message: 'domain_already_verified_by_another_org',
    });
    await t.rejects(request('rival.example'), { message: 'domain_already_verified_by_another_org' });
    t.match(await call('_delete_org_domain', { domain: 'RIVAL.example' }), { message: 'domain deleted successfully' });
    await t.rejects(call('_delete_org_domain', { domain: 'rival.example' }), { code: 'not_found' });
    t.match(await call('_add_verified_org_domain', { org_id: org.id, domain: 'rival.example' }), { org_id: org.id });
    const listed = await call<{ org_domains: { domain: string }[]; pagination: { total: number } }>('_org_domains', {
      org_id: org.id,
      pagination: { limit: 2 },
    });
    t.equal(listed.org_domains.length, 2);
    t.ok(listed.pagination.total >= 5);
  });

  t.test('two organizations racing for one domain: exactly one wins', async (t) => {
    const results = await Promise.allSettled([
      call('_add_verified_org_domain', { org_id: org.id, domain: 'race.example' }),
      call('_add_verified_org_domain', { org_id: rival.id, domain: 'race.example' }),
    ]);
    t.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    t.equal(await kernel.storage.em().count(OrgDomainEntity, { domain: 'race.example' }), 1);
  });

  t.test('deleting the organization frees its domains in the same transaction', async (t) => {
    const temp = await call<{ id: string }>('_create_organization', { name: 'temporary' });
    await call('_add_verified_org_domain', { org_id: temp.id, domain: 'temporary.example' });
    await call('_delete_organization', { id: temp.id });
    t.equal(await kernel.storage.em().count(OrgDomainEntity, { orgId: temp.id }), 0);
    t.match(await call('_add_verified_org_domain', { org_id: rival.id, domain: 'temporary.example' }), {
      org_id: rival.id,
    });
  });

  t.test('verification without a pending challenge is refused', async (t) => {
    await t.rejects(verify('never-requested.example'), { code: 'failed_precondition' });
  });
});

t.test('per-organization limits on challenges', async (t) => {
  const { kernel, close } = await bootTestKernel({
    plugins: [...basePlugins, ...accountPlugins, organizationsPlugin, createOrgDomainsPlugin({ limitPerMinute: 3 })],
    flags: {
      url: 'http://localhost:9999',
      'admin-secret': ADMIN,
      'client-id': 'app',
      'client-secret': 'app-secret',
      'jwt-type': 'HS256',
      'jwt-secret': 'domains-test-secret-0123456789abcdef',
    },
  });
  t.teardown(close);
  const call = (name: string, input: unknown) =>
    kernel.invoke(name, testContext(kernel, { headers: { 'x-service-admin-secret': ADMIN } }), input);
  const one = (await call('_create_organization', { name: 'one' })) as { id: string };
  const two = (await call('_create_organization', { name: 'two' })) as { id: string };
  for (let i = 0; i < 3; i++) await call('_request_org_domain', { org_id: one.id, domain: `d${i}.example` });
  await t.rejects(call('_request_org_domain', { org_id: one.id, domain: 'd9.example' }), {
    code: 'resource_exhausted',
  });
  t.ok(await call('_request_org_domain', { org_id: two.id, domain: 'd9.example' }), 'another org has its own bucket');
});

t.test('--dns-resolver must list addresses', async (t) => {
  const { Kernel } = await import('../../../core/kernel.js');
  const { withDefaults } = await import('../../../core/config.js');
  const plugins = [createOrgDomainsPlugin()];
  const bad = withDefaults(Kernel.flagsOf(plugins), { 'dns-resolver': ['dns.example:53'] });
  t.match(Kernel.configProblems(plugins, bad).join('\n'), /--dns-resolver/);
  const good = withDefaults(Kernel.flagsOf(plugins), { 'dns-resolver': ['127.0.0.1:5353', '[::1]:53'] });
  t.strictSame(Kernel.configProblems(plugins, good), []);
});
