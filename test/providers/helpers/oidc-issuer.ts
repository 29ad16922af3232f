/**
 * A real OpenID Connect identity provider for the tests: node-oidc-provider on 127.0.0.1 over
 * plain http. Its login interaction signs in whichever account the test put in `nextAccount`;
 * consent is granted for the requested scopes (loadExistingGrant), so a login is a chain of
 * redirects a test can follow.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The part of node-oidc-provider's API used here (the package ships no type declarations). */
interface KoaContextWithOIDC {
  oidc: { client?: { clientId: string }; session?: { accountId?: string }; provider: Provider };
}
interface Grant {
  addOIDCScope(scope: string): void;
  save(): Promise<string>;
}
type Configuration = Record<string, unknown> & {
  findAccount: (
    ctx: KoaContextWithOIDC,
    id: string,
  ) => Promise<{ accountId: string; claims: () => Promise<Record<string, unknown>> }>;
  loadExistingGrant: (ctx: KoaContextWithOIDC) => Promise<Grant | undefined>;
};
interface Provider {
  Grant: new (init: { clientId: string; accountId: string }) => Grant;
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
}
type ProviderClass = new (issuer: string, configuration: Configuration) => Provider;

// Imported by a computed name: the declarations above describe it, whatever else in the project
// declares the module for its own use (bench/oauth does).
const OIDC_PROVIDER = 'oidc-provider';
const { default: ProviderImpl } = (await import(OIDC_PROVIDER)) as { default: ProviderClass };

export interface TestAccount {
  sub: string;
  claims: Record<string, unknown>;
}

export interface OidcIssuer {
  issuer: string;
  /** The account the next login interaction signs in. */
  nextAccount: TestAccount;
  close(): Promise<void>;
}

export interface IssuerClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  token_endpoint_auth_method?: 'client_secret_post' | 'client_secret_basic';
}

export async function startOidcIssuer(options: {
  clients: IssuerClient[];
  /** A path below the origin (Microsoft's `/<tenant>/v2.0`). */
  path?: string;
}): Promise<OidcIssuer> {
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}${options.path ?? ''}`;
  const state: { nextAccount: TestAccount } = { nextAccount: { sub: 'nobody', claims: {} } };
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const configuration: Configuration = {
    clients: options.clients.map((c) => ({
      ...c,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: c.token_endpoint_auth_method ?? 'client_secret_post',
    })),
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test-key', use: 'sig', alg: 'RS256' }] },
    cookies: { keys: ['test-cookie-key-0123456789'] },
    claims: {
      openid: ['sub', 'tid'],
      email: ['email', 'email_verified'],
      profile: ['name', 'given_name', 'family_name', 'nickname', 'preferred_username', 'picture'],
    },
    // The claims of the granted scopes go in the ID token too (Microsoft's and Apple's profiles read it).
    conformIdTokenClaims: false,
    pkce: { required: () => false },
    ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    features: { devInteractions: { enabled: false } },
    findAccount: async (_ctx, id) => ({
      accountId: id,
      claims: async () => ({ ...state.nextAccount.claims, sub: id }),
    }),
    loadExistingGrant: async (ctx) => {
      const clientId = ctx.oidc.client!.clientId;
      const accountId = ctx.oidc.session!.accountId!;
      const grant = new ctx.oidc.provider.Grant({ clientId, accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  };
  const provider = new ProviderImpl(issuer, configuration);
  const handler = provider.callback();
  const prefix = options.path ?? '';
  server.on('request', async (req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    if (url.pathname.includes('/interaction/')) {
      // The login screen: the test's account signs in at once.
      try {
        await provider.interactionFinished(
          req,
          res,
          { login: { accountId: state.nextAccount.sub } },
          {
            mergeWithLastSubmission: false,
          },
        );
      } catch (err) {
        res.statusCode = 500;
        res.end(String(err));
      }
      return;
    }
    // Mounted below a path: the provider reads the mount point from originalUrl (as under Express).
    if (prefix && req.url?.startsWith(prefix)) {
      (req as typeof req & { originalUrl?: string }).originalUrl = req.url;
      req.url = req.url.slice(prefix.length) || '/';
    }
    handler(req, res);
  });
  return {
    issuer,
    get nextAccount() {
      return state.nextAccount;
    },
    set nextAccount(a: TestAccount) {
      state.nextAccount = a;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
