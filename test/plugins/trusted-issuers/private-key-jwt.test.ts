/**
 * `private_key_jwt` client authentication (RFC 7523 §2.2, OIDC Core §9) against the started
 * server: openid-client signs the assertion with a key whose public half a local JWKS host
 * serves; every broken assertion is answered 401 invalid_client.
 */
import * as oidc from 'openid-client';
import { SignJWT, generateKeyPair, type CryptoKey } from 'jose';
import t from 'tap';
import { startTestServer, TEST_ADMIN_SECRET, type TestServer } from '../../helpers/server.js';
import { startJwksServer, type IssuerKey } from './jwks-server.js';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

const jwks = await startJwksServer();
t.teardown(() => jwks.close());
const server = await startTestServer({ flags: { 'outbound-allow-cidrs': ['127.0.0.1/32'] } });
t.teardown(() => server.close());

async function admin(target: TestServer, op: string, input: Record<string, unknown>) {
  const r = await fetch(`${target.url}${target.kernel.operations.get(op)!.restPath}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: target.url, 'x-service-admin-secret': TEST_ADMIN_SECRET },
    body: JSON.stringify(input),
  });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

interface Registered {
  id: string;
  clientId: string;
  issuerId: string;
  key: IssuerKey;
}

/** A client with one trusted issuer whose `iss` is the client id itself (RFC 7523 §3). */
async function register(target: TestServer, path: string, issuer?: string): Promise<Registered> {
  const created = await admin(target, '_create_client', { name: `svc ${path}`, allowed_scopes: ['openid'] });
  const client = created.body.client as { id: string; client_id: string };
  const key = await jwks.addKey(path);
  const added = await admin(target, '_add_trusted_issuer', {
    service_account_id: client.id,
    name: `issuer ${path}`,
    issuer_url: issuer ?? client.client_id,
    key_source_type: 'static_jwks_url',
    jwks_url: key.jwksUrl,
    expected_aud: target.url,
    issuer_type: 'generic',
  });
  if (added.status !== 200) throw new Error(`add_trusted_issuer answered ${added.status}`);
  return { id: client.id, clientId: client.client_id, issuerId: added.body.id as string, key };
}

function assertion(
  privateKey: CryptoKey,
  claims: { iss: string; sub: string; aud?: string; exp?: number; nbf?: number; jti?: string },
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer(claims.iss)
    .setSubject(claims.sub)
    .setAudience(claims.aud ?? server.url)
    .setIssuedAt(now)
    .setNotBefore(claims.nbf ?? now)
    .setExpirationTime(claims.exp ?? now + 60)
    .setJti(claims.jti ?? crypto.randomUUID())
    .sign(privateKey);
}

async function tokenWith(
  target: TestServer,
  clientId: string,
  jwt: string,
  path = '/oauth/token',
  extra: Record<string, string> = {},
) {
  const form = new URLSearchParams({
    ...extra,
    client_id: clientId,
    client_assertion_type: ASSERTION_TYPE,
    client_assertion: jwt,
  });
  if (path === '/oauth/token') form.set('grant_type', 'client_credentials');
  const r = await fetch(target.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

const main = await register(server, '/main');

t.test('discovery advertises private_key_jwt and its algorithms', async (t) => {
  const doc = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Record<
    string,
    string[]
  >;
  t.ok(doc.token_endpoint_auth_methods_supported.includes('private_key_jwt'));
  t.ok(doc.introspection_endpoint_auth_methods_supported.includes('private_key_jwt'));
  t.ok(doc.token_endpoint_auth_signing_alg_values_supported.includes('ES256'));
  t.notOk(doc.token_endpoint_auth_signing_alg_values_supported.includes('HS256'), 'no shared-secret algorithm');
});

t.test('openid-client gets a client_credentials token with PrivateKeyJwt', async (t) => {
  const config = await oidc.discovery(
    new URL(server.url),
    main.clientId,
    undefined,
    oidc.PrivateKeyJwt(main.key.privateKey),
    { execute: [oidc.allowInsecureRequests] },
  );
  const tokens = await oidc.clientCredentialsGrant(config, { scope: 'openid' });
  t.type(tokens.access_token, 'string');
  t.equal(tokens.token_type.toLowerCase(), 'bearer');
  const second = await oidc.clientCredentialsGrant(config, { scope: 'openid' });
  t.not(second.access_token, tokens.access_token, 'each call signs a fresh assertion');

  const introspected = await oidc.tokenIntrospection(config, tokens.access_token);
  t.equal(introspected.active, true, 'introspection authenticates the client by assertion');
  t.equal(introspected.sub, `service_account:${main.clientId}`);
  // Client-credentials tokens name no session; the answer shows the assertion was accepted.
  await oidc.tokenRevocation(config, tokens.access_token);
});

t.test('revocation and introspection refuse a bad assertion', async (t) => {
  for (const path of ['/oauth/revoke', '/oauth/introspect']) {
    const jwt = await assertion(main.key.privateKey, {
      iss: main.clientId,
      sub: main.clientId,
      aud: 'https://elsewhere.example',
    });
    const r = await tokenWith(server, main.clientId, jwt, path, { token: 'anything' });
    t.equal(r.status, 401, path);
    t.equal(r.body.error, 'invalid_client', path);
  }
});

t.test('a client_id may be left out: the subject names the client', async (t) => {
  const jwt = await assertion(main.key.privateKey, { iss: main.clientId, sub: main.clientId });
  const r = await fetch(server.url + '/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: jwt,
    }),
  });
  t.equal(r.status, 200);
});

t.test('a replayed assertion is refused', async (t) => {
  const jwt = await assertion(main.key.privateKey, { iss: main.clientId, sub: main.clientId });
  t.equal((await tokenWith(server, main.clientId, jwt)).status, 200);
  const replay = await tokenWith(server, main.clientId, jwt);
  t.equal(replay.status, 401);
  t.equal(replay.body.error, 'invalid_client');
});

t.test('broken assertions are invalid_client', async (t) => {
  const now = Math.floor(Date.now() / 1000);
  const { privateKey: unpublished } = await generateKeyPair('ES256');
  const other = await register(server, '/other', 'https://other-issuer.example');
  const cases: Record<string, () => Promise<string>> = {
    'wrong audience': () =>
      assertion(main.key.privateKey, { iss: main.clientId, sub: main.clientId, aud: 'https://elsewhere.example' }),
    expired: () =>
      assertion(main.key.privateKey, { iss: main.clientId, sub: main.clientId, exp: now - 120, nbf: now - 300 }),
    'not yet valid': () => assertion(main.key.privateKey, { iss: main.clientId, sub: main.clientId, nbf: now + 300 }),
    'wrong key': () => assertion(unpublished, { iss: main.clientId, sub: main.clientId }),
    'another subject': () => assertion(main.key.privateKey, { iss: main.clientId, sub: 'someone-else' }),
    "another client's issuer": () =>
      assertion(other.key.privateKey, { iss: 'https://other-issuer.example', sub: main.clientId }),
    'not a JWT': async () => 'not-a-jwt',
  };
  for (const [name, make] of Object.entries(cases)) {
    const r = await tokenWith(server, main.clientId, await make());
    t.equal(r.status, 401, name);
    t.equal(r.body.error, 'invalid_client', name);
  }
  const own = await tokenWith(
    server,
    other.clientId,
    await assertion(other.key.privateKey, { iss: 'https://other-issuer.example', sub: other.clientId }),
  );
  t.equal(own.status, 200, 'the other issuer works for its own client');
});

t.test('an inactive issuer authenticates nobody', async (t) => {
  t.equal((await admin(server, '_update_trusted_issuer', { id: main.issuerId, is_active: false })).status, 200);
  const r = await tokenWith(
    server,
    main.clientId,
    await assertion(main.key.privateKey, { iss: main.clientId, sub: main.clientId }),
  );
  t.equal(r.status, 401);
  t.equal(r.body.error, 'invalid_client');
  t.equal((await admin(server, '_update_trusted_issuer', { id: main.issuerId, is_active: true })).status, 200);
  const back = await tokenWith(
    server,
    main.clientId,
    await assertion(main.key.privateKey, { iss: main.clientId, sub: main.clientId }),
  );
  t.equal(back.status, 200, 'active again');
});

t.test('an assertion and a secret together are refused', async (t) => {
  const jwt = await assertion(main.key.privateKey, { iss: main.clientId, sub: main.clientId });
  const r = await fetch(server.url + '/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: main.clientId,
      client_secret: 'whatever',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: jwt,
    }),
  });
  t.equal(r.status, 400);
  t.equal(((await r.json()) as { error: string }).error, 'invalid_request');
});

t.test('with oidc_discovery the keys come from the discovery document of the issuer', async (t) => {
  const created = await admin(server, '_create_client', { name: 'discovered', allowed_scopes: ['openid'] });
  const client = created.body.client as { id: string; client_id: string };
  const key = await jwks.addKey('/discovered');
  jwks.serveDiscovery('/discovered');
  const added = await admin(server, '_add_trusted_issuer', {
    service_account_id: client.id,
    name: 'discovered issuer',
    issuer_url: jwks.url,
    key_source_type: 'oidc_discovery',
    expected_aud: `${server.url}/oauth/token`,
    issuer_type: 'generic',
  });
  t.equal(added.status, 200);
  const jwt = await assertion(key.privateKey, {
    iss: jwks.url,
    sub: client.client_id,
    aud: `${server.url}/oauth/token`,
  });
  t.equal((await tokenWith(server, client.client_id, jwt)).status, 200);
  t.equal(key.hits(), 1, 'the key set was fetched once');
});

t.test('a JWKS URL on loopback is refused without the flag allowing it', async (t) => {
  const guarded = await startTestServer();
  t.teardown(() => guarded.close());
  const refused = await register(guarded, '/refused');
  const r = await tokenWith(
    guarded,
    refused.clientId,
    await assertion(refused.key.privateKey, { iss: refused.clientId, sub: refused.clientId, aud: guarded.url }),
  );
  t.equal(r.status, 401);
  t.equal(r.body.error, 'invalid_client');
  t.equal(refused.key.hits(), 0, 'no request reached the JWKS host');
});
