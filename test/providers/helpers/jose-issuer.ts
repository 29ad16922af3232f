/**
 * A small OpenID Connect issuer whose answers a test can bend: the Apple-shaped parts (an ES256
 * client-secret JWT checked at the token endpoint, the form_post answer with the `user` field on
 * the first authorization only), and ID tokens with a wrong audience, issuer, nonce or signature
 * for the kit's refusal tests. Its ID tokens are signed with jose as a real issuer's would be; the
 * relying party (openid-client, inside Latchkey) checks them against the published JWKS.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, jwtVerify, SignJWT, type CryptoKey, type JWK } from 'jose';

export type Tamper = 'wrong-audience' | 'wrong-issuer' | 'wrong-nonce' | 'bad-signature';

export interface JoseAccount {
  sub: string;
  claims: Record<string, unknown>;
  /** Apple's first-authorization `user` form field (name), sent once per subject. */
  name?: { firstName: string; lastName: string };
}

export interface JoseIssuer {
  issuer: string;
  nextAccount: JoseAccount;
  /** The next ID token is bent this way. */
  tamperNext: Tamper | undefined;
  /** The next authorization answers with this error. */
  denyNext: string | undefined;
  /** Every token the token endpoint issued (access and ID tokens), for checks that none leaks. */
  issued: string[];
  /** Client authentications the token endpoint accepted, as it saw them. */
  clientAuths: { method: 'secret' | 'apple-jwt'; claims?: Record<string, unknown> }[];
  close(): Promise<void>;
}

export interface JoseIssuerOptions {
  clientId: string;
  /** A shared secret, or the public key of Apple-style ES256 client-secret JWTs with their team and key ids. */
  client: { secret: string } | { appleKey: JWK; teamId: string; keyId: string };
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function bodyOf(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startJoseIssuer(o: JoseIssuerOptions): Promise<JoseIssuer> {
  const signing = await generateKeyPair('RS256');
  const stranger = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(signing.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const codes = new Map<string, { nonce?: string; redirectUri: string; account: JoseAccount }>();
  const namedOnce = new Set<string>();
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const state: Omit<JoseIssuer, 'issuer' | 'close'> = {
    nextAccount: { sub: 'nobody', claims: {} },
    tamperNext: undefined,
    denyNext: undefined,
    issued: [],
    clientAuths: [],
  };

  async function clientAuthenticated(body: URLSearchParams): Promise<boolean> {
    if (body.get('client_id') !== o.clientId) return false;
    const secret = body.get('client_secret') ?? '';
    if ('secret' in o.client) {
      if (secret !== o.client.secret) return false;
      state.clientAuths.push({ method: 'secret' });
      return true;
    }
    try {
      const { payload, protectedHeader } = await jwtVerify(secret, o.client.appleKey, {
        algorithms: ['ES256'],
        issuer: o.client.teamId,
        subject: o.clientId,
        audience: issuer,
      });
      if (protectedHeader.kid !== o.client.keyId) return false;
      state.clientAuths.push({ method: 'apple-jwt', claims: payload as Record<string, unknown> });
      return true;
    } catch {
      return false;
    }
  }

  async function idToken(account: JoseAccount, nonce: string | undefined): Promise<string> {
    const tamper = state.tamperNext;
    state.tamperNext = undefined;
    const key: CryptoKey = tamper === 'bad-signature' ? stranger.privateKey : signing.privateKey;
    return new SignJWT({
      ...account.claims,
      ...(nonce ? { nonce: tamper === 'wrong-nonce' ? 'another-nonce' : nonce } : {}),
    })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setSubject(account.sub)
      .setIssuer(tamper === 'wrong-issuer' ? `${issuer}/other` : issuer)
      .setAudience(tamper === 'wrong-audience' ? 'another-client' : o.clientId)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(key);
  }

  server.on('request', async (req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    if (url.pathname === '/.well-known/openid-configuration') {
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        response_modes_supported: ['query', 'form_post'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        token_endpoint_auth_methods_supported: ['client_secret_post'],
      });
    }
    if (url.pathname === '/jwks') return json(res, 200, { keys: [jwk] });
    if (url.pathname === '/authorize') {
      const q = url.searchParams;
      const redirectUri = q.get('redirect_uri') ?? '';
      const answer: Record<string, string> = { state: q.get('state') ?? '' };
      const account = state.nextAccount;
      if (state.denyNext) {
        answer.error = state.denyNext;
        state.denyNext = undefined;
      } else {
        const code = randomBytes(16).toString('base64url');
        codes.set(code, { redirectUri, account, ...(q.get('nonce') ? { nonce: q.get('nonce')! } : {}) });
        answer.code = code;
        if (account.name && !namedOnce.has(account.sub)) {
          namedOnce.add(account.sub);
          answer.user = JSON.stringify({ name: account.name, email: account.claims.email });
        }
      }
      if (q.get('response_mode') === 'form_post') {
        const inputs = Object.entries(answer)
          .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
          .join('');
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end(
          `<!doctype html><body onload="document.forms[0].submit()"><form method="post" action="${esc(redirectUri)}">${inputs}</form></body>`,
        );
      }
      const target = new URL(redirectUri);
      for (const [k, v] of Object.entries(answer)) target.searchParams.set(k, v);
      res.writeHead(302, { location: target.toString() });
      return res.end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const body = await bodyOf(req);
      if (!(await clientAuthenticated(body))) return json(res, 401, { error: 'invalid_client' });
      const code = codes.get(body.get('code') ?? '');
      codes.delete(body.get('code') ?? '');
      if (!code || code.redirectUri !== body.get('redirect_uri')) return json(res, 400, { error: 'invalid_grant' });
      const tokens = {
        access_token: randomBytes(24).toString('base64url'),
        token_type: 'Bearer',
        expires_in: 300,
        id_token: await idToken(code.account, code.nonce),
      };
      state.issued.push(tokens.access_token, tokens.id_token);
      return json(res, 200, tokens);
    }
    json(res, 404, { error: 'not_found' });
  });

  return Object.assign(state, {
    issuer,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
}
