/**
 * A provider-shaped OAuth 2.0 server for the providers that are not OpenID Connect (GitHub,
 * Discord, Facebook, X, Twitch): an authorization endpoint that consents at once, a token
 * endpoint that checks the client's credentials the provider's way, the code's single use, the
 * redirect URI and the PKCE verifier (RFC 7636 §4.6), and the provider's API paths answering for
 * whoever holds an issued access token.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ApiRequest {
  url: URL;
  headers: IncomingMessage['headers'];
}

export interface OAuthPeerOptions {
  clientId: string;
  clientSecret: string;
  /** How the token endpoint wants the client authenticated (RFC 6749 §2.3.1). */
  tokenAuth: 'post' | 'basic';
  /** Refuse authorization requests without an S256 code_challenge (X requires PKCE). */
  requirePkce?: boolean;
  /** The provider's API: path -> answer (status 200 JSON unless a status is given). */
  api: Record<string, (req: ApiRequest) => unknown | { status: number; body: unknown }>;
}

export interface OAuthPeer {
  url: string;
  /** Authorization requests seen, for checks on what Latchkey sent. */
  authorizations: URLSearchParams[];
  /** Token requests seen. */
  tokenRequests: URLSearchParams[];
  /** The next authorization answers with this error instead of a code. */
  denyNext: string | undefined;
  close(): Promise<void>;
}

const b64url = (b: Buffer) => b.toString('base64url');

async function bodyOf(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startOAuthPeer(o: OAuthPeerOptions): Promise<OAuthPeer> {
  const codes = new Map<string, { redirectUri: string; challenge?: string }>();
  const tokens = new Set<string>();
  const peer: Omit<OAuthPeer, 'url' | 'close'> = { authorizations: [], tokenRequests: [], denyNext: undefined };
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/authorize') {
      const q = url.searchParams;
      peer.authorizations.push(q);
      const redirect = new URL(q.get('redirect_uri') ?? '');
      if (q.get('state')) redirect.searchParams.set('state', q.get('state')!);
      const challenge = q.get('code_challenge') ?? undefined;
      if (peer.denyNext) {
        redirect.searchParams.set('error', peer.denyNext);
        peer.denyNext = undefined;
      } else if (q.get('client_id') !== o.clientId || q.get('response_type') !== 'code') {
        redirect.searchParams.set('error', 'unauthorized_client');
      } else if (o.requirePkce && (!challenge || q.get('code_challenge_method') !== 'S256')) {
        redirect.searchParams.set('error', 'invalid_request');
      } else {
        const code = b64url(randomBytes(16));
        codes.set(code, { redirectUri: q.get('redirect_uri')!, ...(challenge ? { challenge } : {}) });
        redirect.searchParams.set('code', code);
      }
      res.writeHead(302, { location: redirect.toString() });
      return res.end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const body = await bodyOf(req);
      peer.tokenRequests.push(body);
      let id = body.get('client_id');
      let secret = body.get('client_secret');
      if (o.tokenAuth === 'basic') {
        const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
        if (!basic || secret) return json(res, 401, { error: 'invalid_client' });
        [id, secret] = Buffer.from(basic[1], 'base64').toString().split(':').map(decodeURIComponent);
      }
      if (id !== o.clientId || secret !== o.clientSecret) return json(res, 401, { error: 'invalid_client' });
      const code = codes.get(body.get('code') ?? '');
      codes.delete(body.get('code') ?? '');
      if (!code || body.get('grant_type') !== 'authorization_code' || code.redirectUri !== body.get('redirect_uri'))
        return json(res, 400, { error: 'invalid_grant' });
      if (code.challenge) {
        const verifier = body.get('code_verifier') ?? '';
        if (b64url(createHash('sha256').update(verifier).digest()) !== code.challenge)
          return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
      }
      const token = b64url(randomBytes(24));
      tokens.add(token);
      return json(res, 200, { access_token: token, token_type: 'bearer', scope: '' });
    }
    const handler = o.api[url.pathname];
    if (handler) {
      const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
      if (!bearer || !tokens.has(bearer)) return json(res, 401, { message: 'Bad credentials' });
      const answer = handler({ url, headers: req.headers });
      if (answer && typeof answer === 'object' && 'status' in answer && 'body' in answer)
        return json(res, (answer as { status: number }).status, (answer as { body: unknown }).body);
      return json(res, 200, answer);
    }
    json(res, 404, { message: 'Not Found' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return Object.assign(peer, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
}
