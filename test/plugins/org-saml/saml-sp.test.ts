/**
 * Organization SAML single sign-on with Latchkey as the service provider, against a samlify IdP on
 * 127.0.0.1 whose key pair openssl makes for this run: an org admin connects the organization,
 * the IdP loads the SP metadata, discovery prefers the SAML connection, and an SP-initiated login
 * through /oauth/saml/{org_slug}/login and the ACS creates a just-in-time member and comes back
 * with tokens. Every forged, misdirected, stale, replayed or DTD-carrying response is refused
 * with nothing created; another organization's admin cannot see or change the connection.
 */
import t from 'tap';
import { Browser, delivered, landing } from '../../providers/helpers/browser.js';
import { APP_CALLBACK } from '../../providers/helpers/latchkey.js';
import { expectInactiveThenDeleted, startOrgSsoScene } from '../../helpers/org-sso.js';
import { orgAdminOf } from '../../helpers/org-admin.js';
import { freePort } from '../../helpers/ports.js';
import { SamlIdp, selfSignedKeyPair, type SamlUser } from './saml-idp.js';

const port = await freePort();
const base = `http://localhost:${port}`;
const acsUrl = `${base}/oauth/saml/acme/acs`;
const idp = new SamlIdp();
await idp.start();
t.teardown(() => idp.close());
const {
  latchkey,
  admin,
  acme,
  globex: other,
} = await startOrgSsoScene(base, port, { 'encryption-key': 'org-saml-test-encryption-key-0123456789' });
t.teardown(() => latchkey.close());

const connection = await admin('create_org_saml_connection', {
  org_id: acme,
  name: 'Acme IdP',
  idp_entity_id: idp.entityId,
  idp_sso_url: idp.ssoUrl,
  idp_certificate: idp.keys.certificate,
  attribute_mapping: { email: 'mail', given_name: 'givenName', family_name: 'sn' },
});

const loginUrl = (params: Record<string, string> = {}) =>
  `${base}/oauth/saml/acme/login?${new URLSearchParams({ redirect_uri: APP_CALLBACK, state: 'app-state', ...params })}`;

const usersNamed = async (email: string) =>
  ((await admin('users', { query: email })) as { users: unknown[] }).users.length;

/** Starts an SP-initiated login in a browser, stopping at the IdP: the AuthnRequest's id. */
async function startLogin(browser: Browser): Promise<string> {
  const hops = await browser.follow(loginUrl(), idp.ssoUrl);
  return SamlIdp.authnRequestOf(new URL(hops.at(-1)!.location!)).id;
}

/** Posts a SAMLResponse to the ACS the way the IdP's page does, and follows on. */
const post = (browser: Browser, samlResponse: string, relayState?: string) =>
  browser.follow(acsUrl, APP_CALLBACK, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(idp.ssoUrl).origin },
    body: new URLSearchParams({ SAMLResponse: samlResponse, ...(relayState ? { RelayState: relayState } : {}) }),
  });

const user = (name: string): SamlUser => ({ nameId: `${name}-nameid`, email: `${name}@acme.example` });

t.test('the connection is stored with its SP endpoints and answered by id or organization', async (t) => {
  t.match(connection, {
    org_id: acme,
    name: 'Acme IdP',
    idp_entity_id: idp.entityId,
    idp_sso_url: idp.ssoUrl,
    sp_entity_id: `${base}/oauth/saml/acme/metadata`,
    acs_url: acsUrl,
    attribute_mapping: { email: 'mail', given_name: 'givenName', family_name: 'sn' },
    allow_idp_initiated: false,
    is_active: true,
  });
  t.notOk('idp_certificate' in connection, 'the pinned certificate is not answered');
  t.same(await admin('org_saml_connection', { org_id: acme }), connection);
  t.same(await admin('org_saml_connection', { id: connection.id }), connection);
  await t.rejects(
    admin('create_org_saml_connection', {
      org_id: acme,
      name: 'Second',
      idp_entity_id: 'x',
      idp_sso_url: idp.ssoUrl,
      idp_certificate: idp.keys.certificate,
    }),
    /409/,
    'one connection per organization',
  );
  await t.rejects(
    admin('create_org_saml_connection', {
      org_id: other,
      name: 'Bad certificate',
      idp_entity_id: 'x',
      idp_sso_url: idp.ssoUrl,
      idp_certificate: 'not a certificate',
    }),
    /400.*idp_certificate/,
    'a certificate that does not parse is refused',
  );
  await t.rejects(
    admin('create_org_saml_connection', {
      org_id: other,
      name: 'Plain http',
      idp_entity_id: 'x',
      idp_sso_url: 'http://idp.example.com/sso',
      idp_certificate: idp.keys.certificate,
    }),
    /400.*https/,
    'an http SSO URL that is not loopback is refused',
  );
});

t.test('the SP metadata names the entity id and the ACS and asks for signed assertions', async (t) => {
  const res = await fetch(`${base}/oauth/saml/acme/metadata`);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /samlmetadata\+xml/);
  const xml = await res.text();
  t.match(xml, `entityID="${base}/oauth/saml/acme/metadata"`);
  t.match(xml, `Location="${acsUrl}"`);
  t.match(xml, /WantAssertionsSigned="true"/);
  idp.useSpMetadata(xml);
  t.equal((await fetch(`${base}/oauth/saml/nobody/metadata`)).status, 404, 'no metadata for an unknown organization');
});

t.test('discovery prefers the SAML connection over the OIDC one', async (t) => {
  const oidc = await admin('create_org_oidc_connection', {
    org_id: acme,
    name: 'Acme OIDC',
    issuer_url: 'https://issuer.acme.example',
    client_id: 'c',
    client_secret: 's',
  });
  const res = await fetch(`${base}/api/v1/org-discovery?email=${encodeURIComponent('kim@acme.example')}`);
  t.same(await res.json(), { connection: { type: 'saml', login_url: '/oauth/saml/acme/login' } });
  await admin('delete_org_oidc_connection', { id: oidc.id });
});

t.test('an SP-initiated login: a just-in-time member with tokens at the application', async (t) => {
  idp.nextUser = { nameId: 'kim-at-idp', email: 'kim@acme.example', givenName: 'Kim', familyName: 'Lee' };
  const hops = await new Browser().follow(loginUrl({ state: 'xyz' }), APP_CALLBACK);
  const toIdp = new URL(hops[0]!.location!);
  t.ok(toIdp.href.startsWith(idp.ssoUrl), 'the login goes to the IdP on the redirect binding');
  const request = idp.requests.at(-1)!;
  t.equal(request.destination, idp.ssoUrl, 'the AuthnRequest names the IdP as its destination');
  t.equal(request.issuer, `${base}/oauth/saml/acme/metadata`, 'and the SP as its issuer');
  const params = delivered(landing(hops));
  t.equal(params.get('state'), 'xyz');
  const token = params.get('access_token');
  t.ok(token, 'tokens come back to the application');
  const profile = (await (
    await fetch(`${base}/v1/profile`, { headers: { authorization: `Bearer ${token}` } })
  ).json()) as { id: string; email: string; given_name: string; family_name: string; email_verified: boolean };
  t.match(profile, { email: 'kim@acme.example', given_name: 'Kim', family_name: 'Lee', email_verified: true });
  const orgs = await admin('user_organizations', { user_id: profile.id });
  t.match(JSON.stringify(orgs), /acme/, 'the user is a member of the organization');

  const again = delivered(landing(await new Browser().follow(loginUrl(), APP_CALLBACK)));
  const second = (await (
    await fetch(`${base}/v1/profile`, { headers: { authorization: `Bearer ${again.get('access_token')}` } })
  ).json()) as { id: string };
  t.equal(second.id, profile.id, 'the same NameID signs in to the same account');
});

t.test("an email outside the organization's verified domains is not taken as verified", async (t) => {
  idp.nextUser = { nameId: 'pat-at-idp', email: 'pat@elsewhere.example' };
  const params = delivered(landing(await new Browser().follow(loginUrl(), APP_CALLBACK)));
  const profile = (await (
    await fetch(`${base}/v1/profile`, { headers: { authorization: `Bearer ${params.get('access_token')}` } })
  ).json()) as { email: string; email_verified: boolean };
  t.match(profile, { email: 'pat@elsewhere.example', email_verified: false });
});

t.test('responses that must not sign anyone in are refused, with nothing created', async (t) => {
  const refused = async (name: string, make: (requestId: string, who: SamlUser) => Promise<string>) => {
    const who = user(name);
    const browser = new Browser();
    const requestId = await startLogin(browser);
    const hops = await post(browser, await make(requestId, who));
    t.equal(hops[0]!.status, 400, `${name}: refused`);
    t.match(hops[0]!.body ?? '', /invalid_saml_response/, `${name}: as an invalid response`);
    t.equal(await usersNamed(who.email), 0, `${name}: no user created`);
  };
  const decode = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');
  const encode = (xml: string) => Buffer.from(xml, 'utf8').toString('base64');

  await refused('unsigned', async (id, who) =>
    encode(
      decode(await idp.response({ user: who, inResponseTo: id })).replace(/<ds:Signature[\s\S]*?<\/ds:Signature>/, ''),
    ),
  );
  await refused('otherkey', (id, who) =>
    idp.response({ user: who, inResponseTo: id, signWith: selfSignedKeyPair('attacker.example') }),
  );
  await refused('wrapped', async (id) => {
    // XML signature wrapping: the genuine signed assertion (for someone else) stays in the
    // document, and an unsigned one for the attacker comes first.
    const genuine = decode(await idp.response({ user: user('victim'), inResponseTo: id }));
    const signed = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(genuine)![0];
    const evil = signed
      .replace(/<ds:Signature[\s\S]*?<\/ds:Signature>/, '')
      .replace(/ID="[^"]+"/, 'ID="_evil"')
      .replace(/victim/g, 'wrapped');
    return encode(genuine.replace(signed, evil + signed));
  });
  await refused('audience', (id, who) =>
    idp.response({ user: who, inResponseTo: id, overrides: { Audience: 'https://another-sp.example/metadata' } }),
  );
  await refused('issuer', (id, who) =>
    idp.response({ user: who, inResponseTo: id, overrides: { Issuer: 'https://idp.other.example/saml' } }),
  );
  await refused('recipient', (id, who) =>
    idp.response({ user: who, inResponseTo: id, overrides: { SubjectRecipient: 'https://another-sp.example/acs' } }),
  );
  await refused('destination', (id, who) =>
    idp.response({ user: who, inResponseTo: id, overrides: { Destination: 'https://another-sp.example/acs' } }),
  );
  await refused('expired', (id, who) => {
    const past = (m: number) => new Date(Date.now() - m * 60 * 1000).toISOString();
    return idp.response({
      user: who,
      inResponseTo: id,
      overrides: {
        IssueInstant: past(30),
        ConditionsNotBefore: past(30),
        ConditionsNotOnOrAfter: past(20),
        SubjectConfirmationDataNotOnOrAfter: past(20),
      },
    });
  });
  await refused('unrequested', (_id, who) => idp.response({ user: who, inResponseTo: '_never-requested' }));
  await refused('idpinitiated', (_id, who) => idp.response({ user: who }));
  await refused('xxe', async (id, who) => {
    const xml = decode(await idp.response({ user: who, inResponseTo: id }));
    return encode(
      `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>${xml.replace('xxe-nameid', '&x;')}`,
    );
  });
  await refused('laughs', async (id, who) => {
    const xml = decode(await idp.response({ user: who, inResponseTo: id }));
    const entities = [
      '<!ENTITY l0 "lol">',
      ...Array.from({ length: 9 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`),
    ];
    return encode(`<!DOCTYPE r [${entities.join('')}]>${xml.replace('laughs-nameid', '&l9;')}`);
  });
});

t.test('a response posted from another browser than the one that started the login creates nothing', async (t) => {
  const attacker = new Browser();
  const requestId = await startLogin(attacker);
  const response = await idp.response({ user: user('csrf'), inResponseTo: requestId });
  const hops = await post(new Browser(), response);
  t.equal(hops.at(-1)!.status, 400, 'the victim browser is refused');
  t.match(hops.at(-1)!.body ?? '', /invalid_state/);
  t.equal(await usersNamed('csrf@acme.example'), 0);
});

/** The refused SAML logins of the audit log with the reason `invalid_state`. */
async function stateRefusals(): Promise<number> {
  const { audit_logs } = (await admin('audit_logs', { action: 'user.login' })) as {
    audit_logs: { metadata?: string }[];
  };
  return audit_logs.filter((row) => {
    const meta = JSON.parse(row.metadata ?? '{}') as Record<string, unknown>;
    return meta.outcome === 'failure' && meta.method === 'org_saml' && meta.reason === 'invalid_state';
  }).length;
}

t.test('the second ACS step audits each login it cannot match to the browser', async (t) => {
  const before = await stateRefusals();
  const attacker = new Browser();
  const response = await idp.response({ user: user('unmatched'), inResponseTo: await startLogin(attacker) });
  const hops = await post(new Browser(), response);
  t.match(hops.at(-1)!.body ?? '', /invalid_state/, 'a login started in another browser');
  const forged = await fetch(`${acsUrl}?ticket=forged-ticket`, { redirect: 'manual' });
  t.equal(forged.status, 400, 'a ticket that was never issued');
  t.match(await forged.text(), /invalid_state/);
  t.equal(await stateRefusals(), before + 2, 'both refusals are recorded as failed logins');
});

t.test('IdP-initiated logins when allowed; an assertion is used once', async (t) => {
  await admin('update_org_saml_connection', { id: connection.id, allow_idp_initiated: true });
  const response = await idp.response({ user: user('direct') });
  const first = delivered(landing(await post(new Browser(), response, APP_CALLBACK)));
  t.ok(first.get('access_token'), 'the IdP-initiated response signs the user in');
  t.equal(await usersNamed('direct@acme.example'), 1);
  const replay = await post(new Browser(), response, APP_CALLBACK);
  t.equal(replay[0]!.status, 400, 'the same assertion again is refused');
  t.match(replay[0]!.body ?? '', /invalid_saml_response/);
  const elsewhere = await post(new Browser(), await idp.response({ user: user('relay') }), 'https://evil.example/');
  t.not(
    elsewhere.at(-1)?.location?.startsWith('https://evil.example'),
    true,
    'a RelayState outside the allowed targets is not followed',
  );
  t.equal(await usersNamed('relay@acme.example'), 0);
  await admin('update_org_saml_connection', { id: connection.id, allow_idp_initiated: false });
});

t.test("another organization's admin sees the same not-found for this connection as for none", async (t) => {
  const asBoss = (await orgAdminOf(base, other, admin)).call;
  const foreign = await asBoss('org_saml_connection', { id: connection.id });
  const missing = await asBoss('org_saml_connection', { id: '01a24f00-0000-7000-8000-000000000000' });
  t.same(foreign, missing, 'the same answer');
  t.equal(foreign.status, 404);
  t.equal((await asBoss('update_org_saml_connection', { id: connection.id, is_active: false })).status, 404);
  t.equal((await asBoss('delete_org_saml_connection', { id: connection.id })).status, 404);
  t.equal((await asBoss('org_saml_connection', { org_id: acme })).status, 404, "nor by the other organization's id");
  t.equal((await asBoss('org_saml_connection', { org_id: other })).status, 404, 'its own organization has none');
  const create = (org_id: string) =>
    asBoss('create_org_saml_connection', {
      org_id,
      name: 'Hijack',
      idp_entity_id: 'https://idp.evil.example',
      idp_sso_url: 'https://idp.evil.example/sso',
      idp_certificate: idp.keys.certificate,
    });
  const intoForeign = await create(acme);
  t.same(
    intoForeign,
    await create('01a24f00-0000-7000-8000-000000000000'),
    'creating in another organization looks like a missing one',
  );
  t.equal(intoForeign.status, 404);
});

t.test('an inactive connection is not offered and refuses logins; deleting the organization deletes it', (t) =>
  expectInactiveThenDeleted(t, { latchkey, admin, acme }, 'saml', connection.id as string, loginUrl()),
);
