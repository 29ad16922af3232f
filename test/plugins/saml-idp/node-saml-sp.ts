/**
 * A SAML service provider peer on 127.0.0.1 made with @node-saml/node-saml's SAML class: it starts
 * sign-ins (AuthnRequests on the HTTP-Redirect or HTTP-POST binding, signed when it has a key)
 * and its ACS validates every posted Response with validatePostResponseAsync against the IdP
 * certificates it was given, keeping what it got. Its single logout service (/slo) validates the
 * IdP's LogoutResponses the same way: validateRedirectAsync on HTTP-Redirect (the signature over
 * the query, InResponseTo one of its LogoutRequests), validatePostResponseAsync on HTTP-POST (the
 * enveloped signature). Its own key pair is made by openssl for this run.
 */
import { createServer, type Server } from 'node:http';
import { SAML, ValidateInResponseTo, type Profile } from '@node-saml/node-saml';
import { selfSignedKeyPair, type KeyPair } from '../org-saml/saml-idp.js';

export interface SpOptions {
  /** The IdP's signing certificates, as read from its metadata. */
  idpCerts: string[];
  ssoUrl: string;
  /** The IdP's SingleLogoutService, where LogoutRequests go (HTTP-Redirect). */
  sloUrl?: string;
  binding?: 'HTTP-Redirect' | 'HTTP-POST';
  /** Sign AuthnRequests with this key pair. */
  signWith?: KeyPair;
  /** Accept Responses that answer no request of this SP (IdP-initiated). */
  idpInitiated?: boolean;
}

export interface Received {
  profile?: Profile;
  error?: string;
  relayState?: string;
}

/** A LogoutResponse that reached the SP's single logout service. */
export interface LoggedOut {
  binding: 'redirect' | 'post';
  /** Why node-saml refused it; absent when it validated. */
  error?: string;
  relayState?: string;
  /** The raw query (HTTP-Redirect) or the decoded XML (HTTP-POST). */
  raw: string;
}

export class NodeSamlSp {
  readonly keys = selfSignedKeyPair('sp.acme.example');
  readonly entityId = 'https://sp.acme.example/saml/metadata';
  acsUrl = '';
  sloUrl = '';
  readonly received: Received[] = [];
  readonly loggedOut: LoggedOut[] = [];
  private saml: SAML | null = null;
  /**
   * Checks posted LogoutResponses: node-saml reads InResponseTo only from a Response element, so
   * for a LogoutResponse it would find none; the tests compare InResponseTo themselves.
   */
  private postLogoutChecker: SAML | null = null;
  private server: Server | null = null;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        if ((req.url ?? '').startsWith('/slo')) {
          void this.logout(req.method === 'POST' ? 'post' : 'redirect', req.url ?? '', body).then((entry) => {
            this.loggedOut.push(entry);
            res
              .writeHead(entry.error ? 401 : 200, { 'content-type': 'text/plain' })
              .end(entry.error ?? 'signed out at the SP');
          });
          return;
        }
        const form = new URLSearchParams(body);
        const relayState = form.get('RelayState') ?? undefined;
        void this.saml!.validatePostResponseAsync({ SAMLResponse: form.get('SAMLResponse') ?? '' }).then(
          ({ profile }) => {
            this.received.push({ profile: profile ?? undefined, ...(relayState ? { relayState } : {}) });
            res.writeHead(200, { 'content-type': 'text/plain' }).end('signed in at the SP');
          },
          (err: Error) => {
            this.received.push({ error: err.message });
            res.writeHead(401, { 'content-type': 'text/plain' }).end(err.message);
          },
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    this.acsUrl = `http://127.0.0.1:${port}/acs`;
    this.sloUrl = `http://127.0.0.1:${port}/slo`;
  }

  private async logout(binding: 'redirect' | 'post', url: string, body: string): Promise<LoggedOut> {
    const rawQuery = url.split('?')[1] ?? '';
    const fields = new URLSearchParams(binding === 'redirect' ? rawQuery : body);
    const relayState = fields.get('RelayState') ?? undefined;
    const entry: LoggedOut = {
      binding,
      raw: binding === 'redirect' ? rawQuery : Buffer.from(fields.get('SAMLResponse') ?? '', 'base64').toString('utf8'),
      ...(relayState ? { relayState } : {}),
    };
    try {
      const result =
        binding === 'redirect'
          ? await this.saml!.validateRedirectAsync(Object.fromEntries(fields), rawQuery)
          : await this.postLogoutChecker!.validatePostResponseAsync({ SAMLResponse: fields.get('SAMLResponse') ?? '' });
      if (!result.loggedOut) entry.error = 'not a logout';
    } catch (err) {
      entry.error = (err as Error).message;
    }
    return entry;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  configure(options: SpOptions): void {
    const common = {
      issuer: this.entityId,
      callbackUrl: this.acsUrl,
      entryPoint: options.ssoUrl,
      idpCert: options.idpCerts,
      audience: this.entityId,
    };
    this.postLogoutChecker = new SAML({ ...common, validateInResponseTo: ValidateInResponseTo.never });
    this.saml = new SAML({
      ...(options.sloUrl ? { logoutUrl: options.sloUrl, logoutCallbackUrl: this.sloUrl } : {}),
      issuer: this.entityId,
      callbackUrl: this.acsUrl,
      entryPoint: options.ssoUrl,
      idpCert: options.idpCerts,
      audience: this.entityId,
      wantAssertionsSigned: true,
      wantAuthnResponseSigned: true,
      identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
      validateInResponseTo: options.idpInitiated ? ValidateInResponseTo.ifPresent : ValidateInResponseTo.always,
      acceptedClockSkewMs: 5000,
      ...(options.binding ? { authnRequestBinding: options.binding } : {}),
      ...(options.signWith ? { privateKey: options.signWith.privateKey, signatureAlgorithm: 'sha256' as const } : {}),
    });
  }

  /** The SP's metadata, with its signing certificate and, when configured, its SingleLogoutService. */
  metadata(): string {
    return this.saml!.generateServiceProviderMetadata(null, this.keys.certificate);
  }

  /** Where the SP sends the browser to log out (a signed LogoutRequest, HTTP-Redirect binding). */
  logoutUrl(nameID: string, sessionIndex: string | undefined, relayState = ''): Promise<string> {
    return this.saml!.getLogoutUrlAsync(
      {
        issuer: this.entityId,
        nameID,
        nameIDFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
        ...(sessionIndex ? { sessionIndex } : {}),
      },
      relayState,
      {},
    );
  }

  /** Where the SP sends the browser (HTTP-Redirect binding). */
  redirectUrl(relayState = ''): Promise<string> {
    return this.saml!.getAuthorizeUrlAsync(relayState, undefined, {});
  }

  /** The fields the SP's auto-posting page sends (HTTP-POST binding). */
  async postFields(relayState = ''): Promise<URLSearchParams> {
    const html = await this.saml!.getAuthorizeFormAsync(relayState);
    const fields = new URLSearchParams();
    for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g))
      fields.set(
        m[1]!,
        m[2]!
          .replace(/&apos;/g, "'")
          .replace(/&quot;/g, '"')
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&amp;/g, '&'),
      );
    return fields;
  }
}

/** The signing certificates an IdP metadata document publishes, as PEM. */
export function certificatesOf(metadata: string): string[] {
  return [...metadata.matchAll(/<(?:ds:)?X509Certificate>([^<]+)<\/(?:ds:)?X509Certificate>/g)].map(
    (m) =>
      `-----BEGIN CERTIFICATE-----\n${m[1]!
        .replace(/\s+/g, '')
        .replace(/(.{64})/g, '$1\n')
        .replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`,
  );
}
