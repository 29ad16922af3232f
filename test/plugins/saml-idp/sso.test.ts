/**
 * Latchkey as the SAML identity provider of an organization, against a @node-saml/node-saml
 * service provider on 127.0.0.1 that validates every Response it gets (signature of the Response
 * and of the assertion against the certificates of Latchkey's metadata, audience, recipient,
 * InResponseTo): SP-initiated sign-ins on both bindings through the hosted login page,
 * IdP-initiated ones where the SP allows them, refused requests that deliver nothing, and a key
 * rotation seen in the metadata.
 */
import { deflateRawSync } from 'node:zlib';
import t from 'tap';
import { Browser, type Hop } from '../../providers/helpers/browser.js';
import { startIdpScene } from './idp-scene.js';
import { selfSignedKeyPair } from '../org-saml/saml-idp.js';
import { certificatesOf, NodeSamlSp } from './node-saml-sp.js';

const { latchkey, admin, base, sp, idpEntityId, ssoUrl } = await startIdpScene(
  'saml-idp-sso-test-encryption-key-0123456789',
);
const NEVER = 'about:never';
const acme = ((await admin('create_organization', { name: 'acme' })) as { id: string }).id;

async function signup(email: string, givenName: string): Promise<string> {
  const res = await fetch(`${base}/v1/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ email, password: 'Sso-pass-123', confirm_password: 'Sso-pass-123', given_name: givenName }),
  });
  return ((await res.json()) as { user: { id: string } }).user.id;
}
const kim = await signup('kim@acme.example', 'Kim');
await signup('pat@elsewhere.example', 'Pat');
await admin('add_org_member', { org_id: acme, user_id: kim });

const provider = await admin('create_saml_service_provider', {
  org_id: acme,
  name: 'Acme wiki',
  entity_id: sp.entityId,
  acs_url: sp.acsUrl,
  sp_cert_pem: sp.keys.certificate,
});

const metadata = async () => (await fetch(`${base}/saml/idp/acme/metadata`)).text();
sp.configure({ idpCerts: certificatesOf(await metadata()), ssoUrl, signWith: sp.keys });

/** A browser signed in at Latchkey. */
async function signedIn(email: string): Promise<Browser> {
  const browser = new Browser();
  const res = await browser.request(`${base}/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ email, password: 'Sso-pass-123' }),
  });
  if (res.status !== 200) throw new Error(`login: ${res.status} ${await res.text()}`);
  return browser;
}

/** One signed-in browser for the flows that start with a session (each sign-in hashes a password). */
const kimBrowser = await signedIn('kim@acme.example');
const attacker = selfSignedKeyPair('attacker.example');

const pendingCount = async () => (await latchkey.server.kernel.memory.keys('saml-idp:pending:')).length;
const postTo = (url: string, fields: URLSearchParams, origin: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
  body: fields.toString(),
});
const last = (hops: Hop[]) => hops.at(-1)!;

t.test('the metadata names the entity id, the SSO service on both bindings and the signing key', async (t) => {
  const res = await fetch(`${base}/saml/idp/acme/metadata`);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /samlmetadata\+xml/);
  const xml = await res.text();
  t.match(xml, `entityID="${idpEntityId}"`);
  t.match(xml, `Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${ssoUrl}"`);
  t.match(xml, `Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${ssoUrl}"`);
  t.equal(certificatesOf(xml).length, 1, 'one signing certificate');
  t.equal((await fetch(`${base}/saml/idp/nobody/metadata`)).status, 404, 'none for an unknown organization');
});

t.test('SP-initiated on the redirect binding: the login page first, then a Response the SP accepts', async (t) => {
  const browser = new Browser();
  const toLogin = await browser.follow(await sp.redirectUrl('relay-one'), NEVER);
  const loginPage = new URL(last(toLogin).url);
  t.equal(loginPage.pathname, '/app', 'no session: the hosted login page');
  const returnTo = loginPage.searchParams.get('return_to')!;
  t.match(returnTo, /^\/saml\/idp\/acme\/continue\?ticket=/);
  const before = sp.received.length;
  const hops = await browser.follow(
    `${base}/app/login`,
    NEVER,
    postTo(
      `${base}/app/login`,
      new URLSearchParams({ email: 'kim@acme.example', password: 'Sso-pass-123', return_to: returnTo }),
      base,
    ),
  );
  t.equal(last(hops).url, sp.acsUrl, 'the browser posted the Response to the ACS');
  t.equal(last(hops).status, 200, 'the SP accepted it');
  t.equal(sp.received.length, before + 1);
  const got = sp.received.at(-1)!;
  t.notOk(got.error, 'node-saml validated the Response');
  t.match(got.profile, {
    issuer: idpEntityId,
    nameID: 'kim@acme.example',
    nameIDFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    email: 'kim@acme.example',
    given_name: 'Kim',
  });
  t.ok(got.profile?.inResponseTo, 'it answers the AuthnRequest');
  t.equal(got.relayState, 'relay-one', 'RelayState comes back');
  const xml = got.profile!.getAssertionXml!();
  t.match(xml, `<saml:Audience>${sp.entityId}</saml:Audience>`);
  t.match(xml, `Recipient="${sp.acsUrl}"`);
  t.equal(await pendingCount(), 0, 'the ticket is spent');
});

t.test('SP-initiated on the POST binding with a browser already signed in', async (t) => {
  sp.configure({ idpCerts: certificatesOf(await metadata()), ssoUrl, signWith: sp.keys, binding: 'HTTP-POST' });
  const hops = await kimBrowser.follow(
    ssoUrl,
    NEVER,
    postTo(ssoUrl, await sp.postFields('relay-two'), new URL(sp.acsUrl).origin),
  );
  t.equal(last(hops).url, sp.acsUrl);
  const got = sp.received.at(-1)!;
  t.notOk(got.error, 'node-saml validated the Response');
  t.match(got.profile, { nameID: 'kim@acme.example', issuer: idpEntityId });
  t.equal(got.relayState, 'relay-two');
  sp.configure({ idpCerts: certificatesOf(await metadata()), ssoUrl, signWith: sp.keys });
});

t.test('refused requests answer a 4xx page and deliver nothing', async (t) => {
  const browser = kimBrowser;
  const refused = async (name: string, url: string, status = 400, init: RequestInit = {}) => {
    const before = sp.received.length;
    const hops = await browser.follow(url, NEVER, init);
    t.equal(last(hops).status, status, `${name}: ${status}`);
    t.match(last(hops).body, /Single sign-on error/, `${name}: an error page`);
    t.equal(sp.received.length, before, `${name}: nothing reached the SP`);
    t.equal(await pendingCount(), 0, `${name}: nothing parked`);
    return last(hops).body ?? '';
  };
  const stranger = new NodeSamlSp();
  await stranger.start();
  t.teardown(() => stranger.close());
  stranger.configure({ idpCerts: certificatesOf(await metadata()), ssoUrl, signWith: stranger.keys });
  Object.assign(stranger, { entityId: 'https://unknown.example/saml' });
  stranger.configure({ idpCerts: certificatesOf(await metadata()), ssoUrl, signWith: stranger.keys });
  t.match(await refused('unknown SP', await stranger.redirectUrl()), /unknown service provider/);

  sp.configure({ idpCerts: [], ssoUrl });
  t.match(await refused('unsigned', await sp.redirectUrl()), /not signed/);
  sp.configure({ idpCerts: [], ssoUrl, signWith: attacker });
  t.match(await refused('wrong key', await sp.redirectUrl()), /does not verify/);
  sp.configure({ idpCerts: [], ssoUrl, signWith: sp.keys });
  const tampered = new URL(await sp.redirectUrl('genuine'));
  tampered.searchParams.set('RelayState', 'forged');
  t.match(await refused('tampered query', tampered.href), /does not verify/);
  sp.configure({ idpCerts: [], ssoUrl, signWith: attacker, binding: 'HTTP-POST' });
  t.match(
    await refused('wrong key on POST', ssoUrl, 400, postTo(ssoUrl, await sp.postFields(), new URL(sp.acsUrl).origin)),
    /does not verify/,
  );

  const elsewhere = new NodeSamlSp();
  elsewhere.acsUrl = 'https://evil.example/acs';
  Object.assign(elsewhere, { entityId: sp.entityId, keys: sp.keys });
  elsewhere.configure({ idpCerts: [], ssoUrl, signWith: sp.keys });
  t.match(await refused('unregistered ACS', await elsewhere.redirectUrl()), /not registered/);

  t.match(
    await refused(
      'IdP-initiated not allowed',
      `${base}/saml/idp/acme/initiate?sp=${encodeURIComponent(sp.entityId)}`,
      403,
    ),
    /starts itself/,
  );
  t.match(await refused('unknown organization', `${base}/saml/idp/nobody/sso?SAMLRequest=x`, 404), /not_found/);
  sp.configure({ idpCerts: certificatesOf(await metadata()), ssoUrl, signWith: sp.keys });
});

t.test('an AuthnRequest is answered once', async (t) => {
  const url = await sp.redirectUrl();
  const first = await kimBrowser.follow(url, NEVER);
  t.equal(last(first).url, sp.acsUrl, 'the first use is answered');
  const again = await kimBrowser.follow(url, NEVER);
  t.equal(last(again).status, 400);
  t.match(last(again).body, /already used/, 'a replay is refused');
});

t.test('crafted requests of a provider without a certificate: each check refuses its case', async (t) => {
  await admin('create_saml_service_provider', {
    org_id: acme,
    name: 'Acme CRM',
    entity_id: 'urn:acme:crm',
    acs_url: sp.acsUrl,
  });
  const crafted = (fields: { issueInstant?: string; destination?: string; extra?: string; prolog?: string }) => {
    const xml =
      (fields.prolog ?? '') +
      `<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ` +
      `ID="_crafted${Math.random().toString(16).slice(2)}" Version="2.0" IssueInstant="${fields.issueInstant ?? new Date().toISOString()}" ` +
      `Destination="${fields.destination ?? ssoUrl}"${fields.extra ?? ''}><saml:Issuer>urn:acme:crm</saml:Issuer></samlp:AuthnRequest>`;
    return `${ssoUrl}?${new URLSearchParams({ SAMLRequest: deflateRawSync(Buffer.from(xml)).toString('base64') })}`;
  };
  const refusal = async (url: string) => {
    const hops = await kimBrowser.follow(url, NEVER);
    t.equal(last(hops).status, 400);
    return last(hops).body ?? '';
  };
  const accepted = await kimBrowser.request(crafted({}));
  t.equal(accepted.status, 303, 'a well-formed unsigned request of this provider goes on');
  t.match(accepted.headers.get('location'), /\/saml\/idp\/acme\/continue\?ticket=/);
  t.match(await refusal(crafted({ prolog: '<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>' })), /DTD/);
  t.match(await refusal(crafted({ issueInstant: new Date(Date.now() - 60 * 60 * 1000).toISOString() })), /time window/);
  t.match(await refusal(crafted({ destination: 'https://other.example/sso' })), /another destination/);
  t.match(
    await refusal(crafted({ extra: ' ProtocolBinding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect"' })),
    /binding other than HTTP-POST/,
  );
  t.match(
    await refusal(crafted({ extra: ' AssertionConsumerServiceURL="https://evil.example/acs"' })),
    /not registered/,
  );
  await latchkey.server.kernel.memory.deletePrefix('saml-idp:pending:');
});

t.test('a user outside the organization gets no assertion', async (t) => {
  const browser = await signedIn('pat@elsewhere.example');
  const before = sp.received.length;
  const hops = await browser.follow(await sp.redirectUrl(), NEVER);
  t.equal(last(hops).status, 403);
  t.match(last(hops).body, /not a member of the organization/);
  t.equal(sp.received.length, before, 'nothing reached the SP');
  t.equal(await pendingCount(), 0);
});

t.test("the provider's NameID format and attribute mapping shape the assertion", async (t) => {
  await admin('update_saml_service_provider', {
    id: provider.id,
    name_id_format: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
    mapped_attributes: [
      { name: 'mail', field: 'email' },
      { name: 'uid', field: 'id' },
      { name: 'displayName', field: 'name' },
    ],
  });
  await kimBrowser.follow(await sp.redirectUrl(), NEVER);
  const got = sp.received.at(-1)!;
  t.notOk(got.error, 'node-saml validated the Response');
  t.match(got.profile, {
    nameID: kim,
    nameIDFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
    mail: 'kim@acme.example',
    uid: kim,
    displayName: 'Kim',
  });
  t.notOk(got.profile && 'given_name' in got.profile, 'only the mapped attributes');
  await admin('update_saml_service_provider', {
    id: provider.id,
    name_id_format: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    mapped_attributes: [
      { name: 'email', field: 'email' },
      { name: 'given_name', field: 'given_name' },
      { name: 'family_name', field: 'family_name' },
    ],
  });
});

t.test('IdP-initiated where the SP allows it: a Response that answers no request', async (t) => {
  await admin('update_saml_service_provider', { id: provider.id, allow_idp_initiated: true });
  sp.configure({ idpCerts: certificatesOf(await metadata()), ssoUrl, idpInitiated: true });
  const hops = await kimBrowser.follow(
    `${base}/saml/idp/acme/initiate?${new URLSearchParams({ sp: sp.entityId, RelayState: '/dashboard' })}`,
    NEVER,
  );
  t.equal(last(hops).url, sp.acsUrl);
  const got = sp.received.at(-1)!;
  t.notOk(got.error, 'node-saml validated the Response');
  t.match(got.profile, { nameID: 'kim@acme.example' });
  t.notOk(got.profile?.inResponseTo, 'no InResponseTo');
  t.equal(got.relayState, '/dashboard');
  await admin('update_saml_service_provider', { id: provider.id, allow_idp_initiated: false });
});

t.test('key rotation: both keys in the metadata, the new one signs; retiring takes the old one out', async (t) => {
  const oldCerts = certificatesOf(await metadata());
  const rotated = (await admin('rotate_saml_idp_cert', { org_id: acme })) as { id: string; cert_pem: string };
  const both = certificatesOf(await metadata());
  t.equal(both.length, 2, 'the previous key is still published');
  const body = (pem: string) => pem.replace(/-----[^-]+-----|\s/g, '');
  t.ok(both.map(body).includes(body(rotated.cert_pem)), 'the new key is published');
  t.ok(both.map(body).includes(body(oldCerts[0]!)), 'and the old one');

  const browser = kimBrowser;
  sp.configure({ idpCerts: oldCerts, ssoUrl, signWith: sp.keys });
  await browser.follow(await sp.redirectUrl(), NEVER);
  t.match(sp.received.at(-1)?.error, /signature/i, 'an SP still pinning only the old key refuses the new signature');
  sp.configure({ idpCerts: both, ssoUrl, signWith: sp.keys });
  await browser.follow(await sp.redirectUrl(), NEVER);
  t.notOk(sp.received.at(-1)?.error, 'an SP that refreshed the metadata accepts it');

  const keys = (await admin('saml_idp_keys', { org_id: acme })) as { saml_idp_keys: { id: string; status: string }[] };
  const old = keys.saml_idp_keys.find((k) => k.status === 'active')!;
  await admin('retire_saml_idp_key', { id: old.id });
  const after = certificatesOf(await metadata());
  t.same(after.map(body), [body(rotated.cert_pem)], 'only the current key is left');
});
