/**
 * SP-initiated single logout at Latchkey's SAML IdP, against the @node-saml/node-saml service
 * provider on 127.0.0.1 (node-saml-sp.ts): the provider is registered from its own metadata (its
 * SingleLogoutService included), the IdP metadata names the IdP's logout service on both
 * bindings, a signed LogoutRequest on HTTP-Redirect ends the browser's Latchkey session and comes
 * back to the SP as a signed LogoutResponse that node-saml validates; on HTTP-POST (a request
 * signed by samlify acting as the SP) likewise, answered on the POST binding the SP's metadata
 * names. Unsigned, replayed,
 * misaddressed and foreign requests end nothing.
 */
import t from 'tap';
import * as samlify from 'samlify';
import { Browser, type Hop } from '../../providers/helpers/browser.js';
import { startIdpScene } from './idp-scene.js';
import { certificatesOf } from './node-saml-sp.js';

const { admin, base, sp, idpEntityId, ssoUrl } = await startIdpScene('saml-idp-slo-test-encryption-key-0123456789');
const sloUrl = `${base}/saml/idp/acme/slo`;
const NEVER = 'about:never';
const PASSWORD = 'Slo-pass-123';
const BINDING = samlify.Constants.namespace.binding;
const acme = ((await admin('create_organization', { name: 'acme' })) as { id: string }).id;

async function signup(email: string): Promise<string> {
  const res = await fetch(`${base}/v1/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ email, password: PASSWORD, confirm_password: PASSWORD }),
  });
  return ((await res.json()) as { user: { id: string } }).user.id;
}
await admin('add_org_member', { org_id: acme, user_id: await signup('kim@acme.example') });
await admin('add_org_member', { org_id: acme, user_id: await signup('lee@acme.example') });

// The SP's metadata names its SingleLogoutService: configured first with the IdP's SSO and SLO
// URLs (certificates come once the IdP has a key).
sp.configure({ idpCerts: [], ssoUrl, sloUrl, signWith: sp.keys });
const imported = (await admin('import_saml_sp_metadata', { org_id: acme, metadata_xml: sp.metadata() })) as {
  entity_id: string;
  acs_url: string;
  certificate: string;
  slo_url: string;
  slo_binding: string;
};
const provider = (await admin('create_saml_service_provider', {
  org_id: acme,
  name: 'Acme wiki',
  entity_id: imported.entity_id,
  acs_url: imported.acs_url,
  sp_cert_pem: imported.certificate,
  slo_url: imported.slo_url,
  slo_binding: imported.slo_binding,
})) as { id: string; slo_url: string; slo_binding: string };
const idpMetadata = await (await fetch(`${base}/saml/idp/acme/metadata`)).text();
sp.configure({ idpCerts: certificatesOf(idpMetadata), ssoUrl, sloUrl, signWith: sp.keys });

/** A browser signed in at Latchkey and, through SP-initiated SSO, at the SP. */
async function signedInAtBoth(email: string) {
  const browser = new Browser();
  const res = await browser.request(`${base}/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  if (res.status !== 200) throw new Error(`login: ${res.status}`);
  await browser.follow(await sp.redirectUrl(), NEVER);
  const got = sp.received.at(-1)!;
  if (got.error || got.profile?.nameID !== email) throw new Error(`sso: ${got.error}`);
  return { browser, profile: got.profile };
}

/** Whether the browser's Latchkey session cookie still names a live session. */
const signedIn = async (browser: Browser) =>
  (await browser.request(`${base}/v1/session`, { method: 'POST', headers: { origin: base } })).status === 200;
const last = (hops: Hop[]) => hops.at(-1)!;

t.test('the SP metadata import reads the SingleLogoutService; the IdP metadata names its own', async (t) => {
  t.equal(imported.slo_url, sp.sloUrl);
  t.equal(imported.slo_binding, 'post', 'node-saml declares HTTP-POST');
  t.equal(provider.slo_binding, 'post');
  t.equal(provider.slo_url, sp.sloUrl);
  t.match(idpMetadata, `<SingleLogoutService Binding="${BINDING.redirect}" Location="${sloUrl}"`);
  t.match(idpMetadata, `<SingleLogoutService Binding="${BINDING.post}" Location="${sloUrl}"`);
});

/** The binding the IdP answers the SP's LogoutRequests on. */
const answerOn = (slo_binding: 'redirect' | 'post') =>
  admin('update_saml_service_provider', { id: provider.id, slo_binding });

t.test('HTTP-Redirect: the session ends and a signed LogoutResponse goes back', async (t) => {
  await answerOn('redirect');
  const { browser, profile } = await signedInAtBoth('kim@acme.example');
  t.ok(await signedIn(browser), 'signed in at Latchkey');
  const sessionCookie = browser.cookiesOf(base).get('cookie_session');
  const request = await sp.logoutUrl(profile!.nameID, profile!.sessionIndex, 'relay-out');
  t.ok(new URL(request).searchParams.get('Signature'), 'node-saml signs its LogoutRequest');
  const hops = await browser.follow(request, NEVER);
  t.equal(hops[0]!.status, 302, 'the IdP redirects');
  const answer = new URL(hops[0]!.location!);
  t.equal(`${answer.origin}${answer.pathname}`, sp.sloUrl, 'to the SP’s SingleLogoutService');
  t.ok(answer.searchParams.get('SAMLResponse'), 'with a LogoutResponse');
  t.ok(answer.searchParams.get('Signature'), 'signed over the query');
  t.equal(answer.searchParams.get('SigAlg'), 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
  t.equal(last(hops).status, 200, 'the SP accepted it');
  const got = sp.loggedOut.at(-1)!;
  t.notOk(got.error, 'node-saml validated the signature, the status and InResponseTo');
  t.equal(got.relayState, 'relay-out', 'RelayState comes back');
  t.notOk(browser.cookiesOf(base).has('cookie_session'), 'the session cookie is cleared');
  const old = await fetch(`${base}/v1/session`, {
    method: 'POST',
    headers: { origin: base, cookie: `cookie_session=${sessionCookie}` },
  });
  t.equal(old.status, 401, 'the session itself ended');
});

t.test('HTTP-POST: a request signed by samlify, answered on the POST binding', async (t) => {
  await answerOn('post');
  const { browser } = await signedInAtBoth('kim@acme.example');
  const spEntity = samlify.ServiceProvider({
    entityID: sp.entityId,
    privateKey: sp.keys.privateKey,
    signingCert: sp.keys.certificate,
    requestSignatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    singleLogoutService: [{ Binding: BINDING.post, Location: sp.sloUrl }],
  });
  const idpEntity = samlify.IdentityProvider({ metadata: idpMetadata, wantLogoutRequestSigned: true });
  const made = spEntity.createLogoutRequest(idpEntity, 'post', {
    logoutNameID: 'kim@acme.example',
  }) as { id: string; context: string };
  const hops = await browser.follow(sloUrl, NEVER, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(sp.sloUrl).origin },
    body: new URLSearchParams({ SAMLRequest: made.context, RelayState: 'relay-post' }).toString(),
  });
  t.equal(hops[0]!.status, 200, 'the IdP answers with the auto-posting form');
  t.equal(last(hops).url, sp.sloUrl, 'the browser posted the LogoutResponse to the SP');
  t.equal(last(hops).status, 200, 'the SP accepted it');
  const got = sp.loggedOut.at(-1)!;
  t.equal(got.binding, 'post');
  t.notOk(got.error, 'node-saml validated the enveloped signature');
  t.match(got.raw, `InResponseTo="${made.id}"`, 'it answers the request');
  t.match(got.raw, 'urn:oasis:names:tc:SAML:2.0:status:Success');
  t.match(got.raw, `<saml:Issuer>${idpEntityId}</saml:Issuer>`, 'issued by the IdP');
  t.equal(got.relayState, 'relay-post');
  t.notOk(await signedIn(browser), 'the Latchkey session ended');
});

t.test('requests that end nothing', async (t) => {
  await answerOn('redirect');
  const { browser, profile } = await signedInAtBoth('kim@acme.example');
  const before = sp.loggedOut.length;
  const refused = async (name: string, url: string, reason: RegExp) => {
    const hops = await browser.follow(url, NEVER);
    t.equal(hops.length, 1, `${name}: no redirect`);
    t.equal(hops[0]!.status, 400, `${name}: 400`);
    t.match(hops[0]!.body, reason, name);
  };
  const signedUrl = await sp.logoutUrl(profile!.nameID, profile!.sessionIndex);
  const unsigned = new URL(signedUrl);
  unsigned.searchParams.delete('Signature');
  unsigned.searchParams.delete('SigAlg');
  await refused('unsigned', unsigned.toString(), /the LogoutRequest is not signed/);
  const tampered = new URL(signedUrl);
  tampered.searchParams.set('RelayState', 'added-later');
  await refused('tampered', tampered.toString(), /signature does not verify/);
  const elsewhere = new URL(signedUrl.replace('/saml/idp/acme/slo', '/saml/idp/other/slo'));
  t.equal((await browser.follow(elsewhere.toString(), NEVER))[0]!.status, 404, 'an unknown organization');
  t.equal(sp.loggedOut.length, before, 'nothing reached the SP');
  t.ok(await signedIn(browser), 'the session lives on');

  // The request of another principal: a LogoutResponse, but this browser's session stays.
  const other = await sp.logoutUrl('lee@acme.example', undefined);
  const answered = await browser.follow(other, NEVER);
  t.equal(answered[0]!.status, 302);
  t.ok(await signedIn(browser), 'another user’s logout does not end this session');

  // A request is acted on once.
  const once = await sp.logoutUrl(profile!.nameID, profile!.sessionIndex);
  t.equal((await browser.follow(once, NEVER))[0]!.status, 302);
  t.notOk(await signedIn(browser), 'ended');
  await refused('replayed', once, /already used/);
});

t.test('a provider without a SingleLogoutService or a certificate takes no LogoutRequest', async (t) => {
  const { profile } = await signedInAtBoth('kim@acme.example');
  await admin('update_saml_service_provider', { id: provider.id, slo_url: '' });
  const none = await new Browser().follow(await sp.logoutUrl(profile!.nameID, profile!.sessionIndex), NEVER);
  t.equal(none[0]!.status, 400);
  t.match(none[0]!.body, /no SingleLogoutService/);
  await admin('update_saml_service_provider', { id: provider.id, slo_url: sp.sloUrl, sp_cert_pem: '' });
  t.teardown(() => admin('update_saml_service_provider', { id: provider.id, sp_cert_pem: sp.keys.certificate }));
  const noCert = await new Browser().follow(await sp.logoutUrl(profile!.nameID, profile!.sessionIndex), NEVER);
  t.equal(noCert[0]!.status, 400);
  t.match(noCert[0]!.body, /needs the service provider certificate/);
});

t.test('bad single logout settings are a 400', async (t) => {
  const create = (extra: Record<string, unknown>) =>
    fetch(`${base}/v1/admin/create_saml_service_provider`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-admin-secret': 'test-admin-secret', origin: base },
      body: JSON.stringify({
        org_id: acme,
        name: 'Other',
        entity_id: 'https://other.example/sp',
        acs_url: 'https://other.example/acs',
        ...extra,
      }),
    });
  t.equal((await create({ slo_url: 'not a url' })).status, 400);
  t.equal((await create({ slo_url: 'https://other.example/slo', slo_binding: 'artifact' })).status, 400);
  const created = await create({ slo_url: 'https://other.example/slo', slo_binding: 'post' });
  t.equal(created.status, 200);
  const id = ((await created.json()) as { id: string }).id;
  await admin('update_saml_service_provider', { id, slo_url: '' });
  const update = await fetch(`${base}/v1/admin/update_saml_service_provider`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-admin-secret': 'test-admin-secret', origin: base },
    body: JSON.stringify({ id, slo_binding: 'redirect' }),
  });
  t.equal(update.status, 400, 'a binding without a URL');
  t.match(await update.json(), { code: 'invalid_argument', message: 'slo_binding needs an slo_url' });
});
