/**
 * A SAML identity provider peer on 127.0.0.1 made with samlify: its signing key pair is a
 * self-signed certificate made by openssl for this run. `GET /sso` takes the SP's AuthnRequest on
 * the HTTP-Redirect binding and answers the auto-posting form of the HTTP-POST binding with a
 * signed Response for `nextUser`; `response()` builds one directly, with any template value
 * overridden, for the cases a well-behaved IdP never sends.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { DOMParser } from '@xmldom/xmldom';
import * as samlify from 'samlify';

export interface KeyPair {
  privateKey: string;
  certificate: string;
}

export function selfSignedKeyPair(cn: string): KeyPair {
  const dir = mkdtempSync(join(tmpdir(), 'saml-idp-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '2',
        '-subj',
        `/CN=${cn}`,
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return {
      privateKey: readFileSync(join(dir, 'key.pem'), 'utf8'),
      certificate: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface SamlUser {
  nameId: string;
  email: string;
  givenName?: string;
  familyName?: string;
}

export interface ResponseOptions {
  user: SamlUser;
  /** The AuthnRequest answered; omitted for an IdP-initiated response. */
  inResponseTo?: string;
  /** Template values to replace (Audience, SubjectRecipient, ConditionsNotOnOrAfter, …). */
  overrides?: Record<string, string>;
  /** Sign with this key pair instead of the IdP's own. */
  signWith?: KeyPair;
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

function attributeStatement(attributes: Record<string, string | undefined>): string {
  const parts = Object.entries(attributes)
    .filter(([, v]) => v !== undefined)
    .map(
      ([name, value]) =>
        `<saml:Attribute Name="${escape(name)}"><saml:AttributeValue xsi:type="xs:string">${escape(value!)}</saml:AttributeValue></saml:Attribute>`,
    );
  return `<saml:AttributeStatement>${parts.join('')}</saml:AttributeStatement>`;
}

export class SamlIdp {
  readonly keys = selfSignedKeyPair('idp.acme.example');
  readonly entityId = 'https://idp.acme.example/saml';
  ssoUrl = '';
  nextUser: SamlUser | null = null;
  /** The AuthnRequests the IdP received, parsed. */
  readonly requests: { id: string; destination: string | null; acs: string | null; issuer: string | null }[] = [];
  private server: Server | null = null;
  private sp: ReturnType<typeof samlify.ServiceProvider> | null = null;

  /** The SP as its metadata describes it (the metadata an organization's admin uploads to the IdP). */
  useSpMetadata(xml: string): void {
    this.sp = samlify.ServiceProvider({ metadata: xml });
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      void this.sso(new URL(req.url ?? '/', 'http://127.0.0.1')).then(
        (html) => res.writeHead(200, { 'content-type': 'text/html' }).end(html),
        (err: Error) => res.writeHead(400).end(err.message),
      );
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.ssoUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/sso`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The AuthnRequest of a redirect URL (SAML Bindings §3.4.4.1: DEFLATE, base64, URL-encoded). */
  static authnRequestOf(url: URL) {
    const encoded = url.searchParams.get('SAMLRequest');
    if (!encoded) throw new Error('no SAMLRequest');
    const xml = inflateRawSync(Buffer.from(encoded, 'base64')).toString('utf8');
    const root = new DOMParser().parseFromString(xml, 'text/xml').documentElement!;
    if (root.localName !== 'AuthnRequest') throw new Error('not an AuthnRequest');
    const issuer =
      root.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:assertion', 'Issuer')[0]?.textContent ?? null;
    return {
      id: root.getAttribute('ID') ?? '',
      destination: root.getAttribute('Destination'),
      acs: root.getAttribute('AssertionConsumerServiceURL'),
      issuer,
    };
  }

  private async sso(url: URL): Promise<string> {
    if (url.pathname !== '/sso') throw new Error('not found');
    const request = SamlIdp.authnRequestOf(url);
    this.requests.push(request);
    if (!this.nextUser) throw new Error('no user signed in at the IdP');
    const response = await this.response({ user: this.nextUser, inResponseTo: request.id });
    const acs = request.acs ?? '';
    return (
      `<html><body onload="document.forms[0].submit()"><form method="post" action="${escape(acs)}">` +
      `<input type="hidden" name="SAMLResponse" value="${response}">` +
      (url.searchParams.get('RelayState') !== null
        ? `<input type="hidden" name="RelayState" value="${escape(url.searchParams.get('RelayState')!)}">`
        : '') +
      `</form></body></html>`
    );
  }

  /** A base64 Response whose assertion samlify signs. */
  async response(options: ResponseOptions): Promise<string> {
    if (!this.sp) throw new Error('the SP metadata is not loaded');
    const keys = options.signWith ?? this.keys;
    const idp = samlify.IdentityProvider({
      entityID: this.entityId,
      privateKey: keys.privateKey,
      signingCert: keys.certificate,
      singleSignOnService: [{ Binding: samlify.Constants.namespace.binding.redirect, Location: this.ssoUrl }],
      nameIDFormat: ['urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified'],
    });
    const sp = this.sp;
    const { user } = options;
    const context = await idp.createLoginResponse(
      sp,
      { extract: { request: { id: options.inResponseTo ?? '' } } },
      'post',
      {},
      () => {
        // samlify's own Response template, filled here: its replaceTagsByValue escapes every value,
        // and the AuthnStatement and AttributeStatement are XML.
        const template = samlify.SamlLib.defaultLoginResponseTemplate.context;
        const now = new Date();
        const later = new Date(now.getTime() + 5 * 60 * 1000).toISOString();
        const acs = sp.entityMeta.getAssertionConsumerService('post') as string;
        const values: Record<string, string> = {
          ID: `_${Math.random().toString(16).slice(2)}${Date.now().toString(16)}`,
          AssertionID: `_a${Math.random().toString(16).slice(2)}${Date.now().toString(16)}`,
          Destination: acs,
          Audience: sp.entityMeta.getEntityID(),
          SubjectRecipient: acs,
          Issuer: this.entityId,
          IssueInstant: now.toISOString(),
          StatusCode: 'urn:oasis:names:tc:SAML:2.0:status:Success',
          ConditionsNotBefore: now.toISOString(),
          ConditionsNotOnOrAfter: later,
          SubjectConfirmationDataNotOnOrAfter: later,
          NameIDFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
          NameID: escape(user.nameId),
          InResponseTo: options.inResponseTo ?? '',
          AuthnStatement: `<saml:AuthnStatement AuthnInstant="${now.toISOString()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`,
          AttributeStatement: attributeStatement({
            mail: user.email,
            givenName: user.givenName,
            sn: user.familyName,
          }),
          ...options.overrides,
        };
        let xml = template.replace(/\{(\w+)\}/g, (_, tag: string) => values[tag] ?? '');
        // An IdP-initiated Response answers no request: it carries no InResponseTo at all.
        if (!options.inResponseTo) xml = xml.replace(/ InResponseTo=""/g, '');
        return { id: values.ID!, context: xml };
      },
    );
    return (context as { context: string }).context;
  }
}
