/**
 * Every admin operation of the default distribution is audited (docs/audit.md): each declares an
 * `audit` field, and each, called once over REST, leaves exactly one audit row with its declared
 * action and resource type and the resource it acted on. An admin operation added without a
 * declaration, or without a call in CALLS below, fails here with a message saying what to add.
 */
import t from 'tap';
import type { CompiledOperation } from '../../../core/operations.js';
import { MailOutboxEntity } from '../../../plugins/email/entities.js';
import { SmsOutboxEntity } from '../../../plugins/sms/entities.js';
import { startTestServer, TEST_ADMIN_SECRET, TEST_CLIENT_SECRET } from '../../helpers/server.js';
import { mailFlags } from '../email/helpers.js';
import { startSmtpSink } from '../email/smtp-sink.js';
import { startTxtDns } from '../org-domains/txt-dns.js';
import { selfSignedKeyPair } from '../org-saml/saml-idp.js';
import { startReceiver } from '../webhooks/receiver.js';

// Real peers for the operations that need them: SMTP for invitations, DNS for domain checks,
// an HTTP receiver for test_endpoint.
const sink = await startSmtpSink();
t.teardown(() => sink.close());
const dns = await startTxtDns();
t.teardown(() => dns.close());
const receiver = await startReceiver(TEST_CLIENT_SECRET);
t.teardown(() => receiver.close());
const server = await startTestServer({
  flags: { 'outbound-allow-cidrs': ['127.0.0.1/32'], ...mailFlags(sink), 'dns-resolver': [dns.address] },
});
t.teardown(() => server.close());
const headers = {
  'content-type': 'application/json',
  origin: server.url,
  'x-service-admin-secret': TEST_ADMIN_SECRET,
  'user-agent': 'audit-sweep/1.0',
};

/** What earlier calls made, for later calls' inputs and expected resources. */
const made: Record<string, string> = {};
/** The IdP certificate a SAML connection pins (it must parse). */
const auditedCertificate = selfSignedKeyPair('idp.audited.example').certificate;

interface Call {
  /** The input, built from what earlier calls made. */
  input?: () => Record<string, unknown>;
  /** The id of the resource acted on ('' for a list or a whole store). */
  resource?: () => string;
  /** Remembers ids of what the call made, or makes what the call needs (before: runs first). */
  keep?: (answer: Record<string, unknown>) => unknown;
  before?: () => Promise<void>;
}

const MODEL = 'model\n  schema 1.1\ntype user\ntype doc\n  relations\n    define viewer: [user]\n';
const TUPLES = { tuples: [{ user: 'user:anne', relation: 'viewer', object: 'doc:1' }] };

/** One call per admin operation, in an order where each finds what it needs. */
const CALLS: Record<string, Call> = {
  _admin_login: { input: () => ({ admin_secret: TEST_ADMIN_SECRET }) },
  _admin_session: {},
  _admin_meta: {},
  _users: { input: () => ({}) },
  _user: { input: () => ({ id: made.user }), resource: () => made.user },
  _update_user: { input: () => ({ id: made.user, given_name: 'Audited' }), resource: () => made.user },
  _revoke_access: { input: () => ({ user_id: made.user }), resource: () => made.user },
  _enable_access: { input: () => ({ user_id: made.user }), resource: () => made.user },
  _verification_requests: { input: () => ({}) },
  _create_client: {
    input: () => ({
      name: 'audited',
      allowed_scopes: ['openid'],
      redirect_uris: ['https://app.example/cb'],
      post_logout_redirect_uris: [],
    }),
    keep: (a) => (made.client = (a.client as { id: string }).id),
    resource: () => made.client,
  },
  _update_client: { input: () => ({ id: made.client, name: 'audited-2' }), resource: () => made.client },
  _rotate_client_secret: { input: () => ({ id: made.client }), resource: () => made.client },
  _client: { input: () => ({ id: made.client }), resource: () => made.client },
  _clients: { input: () => ({}) },
  _fga_write_model: {
    input: () => ({ dsl: MODEL }),
    keep: (a) => (made.model = a.id as string),
    resource: () => made.model,
  },
  _fga_get_model: { resource: () => made.model },
  _fga_write_tuples: { input: () => TUPLES },
  _fga_read_tuples: { input: () => ({}) },
  _fga_list_users: {
    input: () => ({ object: 'doc:1', relation: 'viewer', user_type: 'user' }),
    resource: () => 'doc:1',
  },
  _fga_expand: { input: () => ({ relation: 'viewer', object: 'doc:1' }), resource: () => 'doc:1' },
  _fga_delete_tuples: { input: () => TUPLES },
  _fga_reset: {},
  _audit_logs: { input: () => ({}) },
  _add_webhook: {
    input: () => ({ event_name: 'user.login', endpoint: 'http://127.0.0.1:9/hook', enabled: false }),
    keep: async () => {
      made.webhook = (await server.kernel.service('webhooks').list({ limit: 1, offset: 0 })).rows[0].id;
    },
    resource: () => made.webhook,
  },
  _update_webhook: { input: () => ({ id: made.webhook, enabled: false }), resource: () => made.webhook },
  _webhook: { input: () => ({ id: made.webhook }), resource: () => made.webhook },
  _webhooks: { input: () => ({}) },
  _webhook_logs: { input: () => ({ webhook_id: made.webhook }), resource: () => made.webhook },
  _test_endpoint: { input: () => ({ endpoint: `${receiver.url}/probe`, event_name: 'user.login' }) },
  _delete_webhook: { input: () => ({ id: made.webhook }), resource: () => made.webhook },
  _add_email_template: {
    input: () => ({ event_name: 'forgot_password', subject: 'Reset', template: '<p>{{link}}</p>' }),
    keep: async () => {
      const r = await call(byName('_email_templates'), {});
      made.template = (r.json.email_templates as { id: string }[])[0].id;
    },
    resource: () => 'forgot_password',
  },
  _update_email_template: { input: () => ({ id: made.template, subject: 'Reset now' }), resource: () => made.template },
  _email_templates: { input: () => ({}) },
  _delete_email_template: { input: () => ({ id: made.template }), resource: () => made.template },
  _invite_members: { input: () => ({ emails: ['invited@example.com'] }) },
  _email_outbox: { input: () => ({}) },
  _retry_email: {
    // A mail that failed for good, as the outbox leaves one after its last attempt.
    before: async () => {
      const em = server.kernel.storage.em();
      em.create(MailOutboxEntity, {
        id: 'failed-mail',
        event: 'forgot_password',
        recipient: 'nobody@example.com',
        subject: 's',
        html: 'h',
        text: 't',
        status: 'failed',
        attempts: 5,
        nextAttemptAt: Date.now(),
        leaseUntil: null,
        lastError: 'refused',
        createdAt: Date.now(),
        sentAt: null,
      } as never);
      await em.flush();
    },
    input: () => ({ id: 'failed-mail' }),
    resource: () => 'failed-mail',
  },
  _sms_outbox: { input: () => ({}) },
  _retry_sms: {
    // A text that failed for good, its code still live.
    before: async () => {
      const em = server.kernel.storage.em();
      em.create(SmsOutboxEntity, {
        id: 'failed-text',
        recipient: '+15550009999',
        body: 'b',
        expiresAt: Date.now() + 600_000,
        status: 'failed',
        attempts: 6,
        nextAttemptAt: Date.now(),
        leaseUntil: null,
        lastError: 'refused',
        createdAt: Date.now(),
        sentAt: null,
      } as never);
      await em.flush();
    },
    input: () => ({ id: 'failed-text' }),
    resource: () => 'failed-text',
  },
  _create_organization: {
    input: () => ({ name: 'audited-org' }),
    keep: (a) => (made.org = a.id as string),
    resource: () => made.org,
  },
  _update_organization: { input: () => ({ id: made.org, display_name: 'Audited' }), resource: () => made.org },
  _organization: { input: () => ({ id: made.org }), resource: () => made.org },
  _organizations: { input: () => ({}) },
  _add_org_member: { input: () => ({ org_id: made.org, user_id: made.user }), resource: () => made.org },
  _org_members: { input: () => ({ org_id: made.org }), resource: () => made.org },
  _user_organizations: { input: () => ({ user_id: made.user }), resource: () => made.user },
  _remove_org_member: { input: () => ({ org_id: made.org, user_id: made.user }), resource: () => made.org },
  _request_org_domain: {
    input: () => ({ org_id: made.org, domain: 'audited.example' }),
    keep: (a) => dns.records.set(a.record_name as string, [a.record_value as string]),
    resource: () => 'audited.example',
  },
  _verify_org_domain: {
    input: () => ({ org_id: made.org, domain: 'audited.example' }),
    resource: () => 'audited.example',
  },
  _add_verified_org_domain: {
    input: () => ({ org_id: made.org, domain: 'asserted.example' }),
    resource: () => 'asserted.example',
  },
  _org_domains: { input: () => ({ org_id: made.org }), resource: () => made.org },
  _delete_org_domain: { input: () => ({ domain: 'asserted.example' }), resource: () => 'asserted.example' },
  _create_scim_endpoint: { input: () => ({ org_id: made.org }), resource: () => made.org },
  _scim_endpoint: { input: () => ({ org_id: made.org }), resource: () => made.org },
  _rotate_scim_token: { input: () => ({ org_id: made.org }), resource: () => made.org },
  _delete_scim_endpoint: { input: () => ({ org_id: made.org }), resource: () => made.org },
  _create_org_oidc_connection: {
    input: () => ({
      org_id: made.org,
      name: 'Audited IdP',
      issuer_url: 'https://idp.audited.example',
      client_id: 'audited',
      client_secret: 'audited-secret',
    }),
    keep: (a) => (made.oidc = a.id as string),
    resource: () => made.oidc,
  },
  _update_org_oidc_connection: { input: () => ({ id: made.oidc, name: 'Renamed' }), resource: () => made.oidc },
  _org_oidc_connection: { input: () => ({ id: made.oidc }), resource: () => made.oidc },
  _delete_org_oidc_connection: { input: () => ({ id: made.oidc }), resource: () => made.oidc },
  _create_org_saml_connection: {
    input: () => ({
      org_id: made.org,
      name: 'Audited SAML IdP',
      idp_entity_id: 'https://idp.audited.example/saml',
      idp_sso_url: 'https://idp.audited.example/sso',
      idp_certificate: auditedCertificate,
    }),
    keep: (a) => (made.saml = a.id as string),
    resource: () => made.saml,
  },
  _update_org_saml_connection: { input: () => ({ id: made.saml, name: 'Renamed' }), resource: () => made.saml },
  _org_saml_connection: { input: () => ({ id: made.saml }), resource: () => made.saml },
  _delete_org_saml_connection: { input: () => ({ id: made.saml }), resource: () => made.saml },
  _create_saml_service_provider: {
    input: () => ({
      org_id: made.org,
      name: 'Audited SP',
      entity_id: 'https://sp.audited.example/saml',
      acs_url: 'https://sp.audited.example/acs',
    }),
    keep: (a) => (made.samlSp = a.id as string),
    resource: () => made.samlSp,
  },
  _update_saml_service_provider: { input: () => ({ id: made.samlSp, name: 'Renamed' }), resource: () => made.samlSp },
  _saml_service_provider: { input: () => ({ id: made.samlSp }), resource: () => made.samlSp },
  _saml_service_providers: { input: () => ({ org_id: made.org }), resource: () => made.org },
  _import_saml_sp_metadata: {
    input: () => ({
      org_id: made.org,
      metadata_xml:
        '<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://sp.audited.example/saml"><SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://sp.audited.example/acs" index="0"/></SPSSODescriptor></EntityDescriptor>',
    }),
    resource: () => made.org,
  },
  _rotate_saml_idp_cert: {
    input: () => ({ org_id: made.org }),
    keep: (a) => (made.samlKey = a.id as string),
    resource: () => made.samlKey,
  },
  _saml_idp_keys: {
    input: () => ({ org_id: made.org }),
    keep: (a) =>
      (made.samlOldKey = (a.saml_idp_keys as { id: string; status: string }[]).find((k) => k.status === 'active')!.id),
    resource: () => made.org,
  },
  _retire_saml_idp_key: { input: () => ({ id: made.samlOldKey }), resource: () => made.samlOldKey },
  _delete_saml_service_provider: { input: () => ({ id: made.samlSp }), resource: () => made.samlSp },
  _delete_organization: { input: () => ({ id: made.org }), resource: () => made.org },
  _add_trusted_issuer: {
    input: () => ({
      service_account_id: made.client,
      name: 'Audited issuer',
      issuer_url: 'https://issuer.audited.example',
      key_source_type: 'static_jwks_url',
      jwks_url: 'https://issuer.audited.example/jwks',
      expected_aud: server.url,
      issuer_type: 'generic',
    }),
    keep: (a) => (made.issuer = a.id as string),
    resource: () => made.issuer,
  },
  _update_trusted_issuer: { input: () => ({ id: made.issuer, name: 'Renamed' }), resource: () => made.issuer },
  _trusted_issuer: { input: () => ({ id: made.issuer }), resource: () => made.issuer },
  _trusted_issuers: { input: () => ({ service_account_id: made.client }) },
  _delete_trusted_issuer: { input: () => ({ id: made.issuer }), resource: () => made.issuer },
  _delete_client: { input: () => ({ id: made.client }), resource: () => made.client },
  _delete_user: { input: () => ({ id: made.user }), resource: () => made.user },
  _admin_logout: {},
};

const adminOperations = [...server.kernel.operations.values()].filter((op) => op.isAdmin && !op.def.deprecated);
const byName = (name: string): CompiledOperation => adminOperations.find((op) => op.def.name === name)!;

t.test('every admin operation declares what it audits', async (t) => {
  for (const op of adminOperations) {
    t.ok(
      op.def.audit,
      `${op.def.name} (plugin ${op.plugin}) has no audit declaration: add \`audit: { action: '<resource>.<verb>', resourceType: '<resource>', resourceId: ({ input, output }) => ... }\` to its defineOperation (docs/audit.md)`,
    );
  }
});

t.test('every admin operation has a call in this table', async (t) => {
  for (const op of adminOperations) {
    t.ok(
      CALLS[op.def.name],
      `${op.def.name} (plugin ${op.plugin}) has no call in CALLS of test/plugins/audit/every-admin-operation.test.ts: add one with a valid input and the resource it acts on`,
    );
  }
});

async function call(op: CompiledOperation, input: Record<string, unknown> | undefined) {
  const r = await fetch(`${server.url}${op.restPath}`, {
    method: op.restMethod,
    headers,
    ...(op.restMethod === 'POST' ? { body: JSON.stringify(input ?? {}) } : {}),
  });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

t.test('each admin operation, called once, leaves exactly one audit row', async (t) => {
  const signup = await fetch(`${server.url}/v1/signup`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email: 'audited@example.com', password: 'Secret-pass1', confirm_password: 'Secret-pass1' }),
  });
  const signed = (await signup.json()) as { user: { id: string } };
  t.equal(signup.status, 200, 'a user to act on');
  made.user = signed.user.id;
  const audit = server.kernel.service('audit');
  for (const [name, spec] of Object.entries(CALLS)) {
    const op = byName(name);
    if (!op) continue; // a plugin of this table that the default distribution does not hold
    await spec.before?.();
    const before = (await audit.list({}, { limit: 1, offset: 0 })).total;
    const answer = await call(op, spec.input?.());
    t.equal(answer.status, 200, `${name} answered ${JSON.stringify(answer.json).slice(0, 300)}`);
    await server.kernel.events.drain();
    const { rows, total } = await audit.list({}, { limit: 1, offset: 0 });
    t.equal(total - before, 1, `${name}: exactly one audit row`);
    await spec.keep?.(answer.json);
    t.match(
      rows[0],
      {
        action: op.def.audit?.action,
        resourceType: op.def.audit?.resourceType,
        resourceId: spec.resource?.() ?? '',
        actorType: 'admin',
        ipAddress: '127.0.0.1',
        userAgent: 'audit-sweep/1.0',
      },
      `${name}: action ${op.def.audit?.action} on its resource`,
    );
  }
});

t.test('no row holds a secret the calls carried', async (t) => {
  const { rows } = await server.kernel.service('audit').list({}, { limit: 1000, offset: 0 });
  const text = JSON.stringify(rows);
  t.notOk(text.includes(TEST_ADMIN_SECRET), 'not the admin secret');
  t.notOk(text.includes('Secret-pass1'), 'not a password');
  t.notOk(text.includes('audited-secret'), 'not an upstream client secret');
});
