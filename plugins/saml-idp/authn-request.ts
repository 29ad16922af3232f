/**
 * An AuthnRequest (or a LogoutRequest, logout-request.ts) as it arrives on the HTTP-Redirect binding (DEFLATE, base64, URL-encoded, an
 * optional detached signature over the encoded query; SAML Bindings §3.4.4) or the HTTP-POST
 * binding (base64, an optional enveloped XML signature; §3.5.4), read and, when the service
 * provider has a certificate, verified: samlify checks the redirect binding's signature over the
 * query bytes as sent, xml-crypto the enveloped one. The request's fields are read from the
 * document only after any DTD has been refused.
 */
import { inflateRawSync } from 'node:zlib';
import { DOMParser, type Element } from '@xmldom/xmldom';
import * as samlify from 'samlify';
import { SignedXml } from 'xml-crypto';
import { RefusedSamlMessage, withoutDtd } from './xml-guard.js';

const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
export const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';
const DSIG = 'http://www.w3.org/2000/09/xmldsig#';
const POST_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
const MAX_ENCODED = 64 * 1024;
const MAX_XML = 256 * 1024;
/** Signature algorithms accepted on the redirect binding: RSA with SHA-256 or SHA-512 (no SHA-1). */
const REDIRECT_SIG_ALGS = new Set([
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512',
]);

export interface AuthnRequest {
  id: string;
  issuer: string;
  issueInstant: string;
  destination: string | null;
  acsUrl: string | null;
  protocolBinding: string | null;
  xml: string;
}

export type Binding = 'redirect' | 'post';

/** The requests an SP sends the IdP. */
export type RequestKind = 'AuthnRequest' | 'LogoutRequest';

const refuse = (reason: string): never => {
  throw new RefusedSamlMessage(reason);
};

export function decoded(binding: Binding, encoded: string | undefined): string {
  if (typeof encoded !== 'string' || encoded.length === 0) return refuse('SAMLRequest is missing');
  if (encoded.length > MAX_ENCODED) return refuse('SAMLRequest is too large');
  if (!/^[A-Za-z0-9+/=\r\n]+$/.test(encoded)) return refuse('SAMLRequest is not base64');
  const bytes = Buffer.from(encoded, 'base64');
  // SAML Bindings §3.5.4 posts the XML itself; some SPs (node-saml among them) DEFLATE it as on
  // the redirect binding, which the first byte tells apart (XML starts with `<` or a BOM).
  if (binding === 'post' && /^\s*(<|\uFEFF)/.test(bytes.subarray(0, 8).toString('utf8'))) return bytes.toString('utf8');
  try {
    return inflateRawSync(bytes, { maxOutputLength: MAX_XML }).toString('utf8');
  } catch {
    return refuse('SAMLRequest is not DEFLATE-compressed');
  }
}

export function parsed(xml: string, kind: RequestKind = 'AuthnRequest'): Element {
  let root: Element | null;
  try {
    const parser = new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') throw new Error(message);
      },
    });
    root = parser.parseFromString(withoutDtd(xml), 'text/xml').documentElement;
  } catch (err) {
    if (err instanceof RefusedSamlMessage) throw err;
    return refuse('SAMLRequest is not well-formed XML');
  }
  if (!root || root.namespaceURI !== PROTOCOL || root.localName !== kind)
    return refuse(`SAMLRequest is not a${kind === 'AuthnRequest' ? 'n' : ''} ${kind}`);
  return root;
}

export const childrenOf = (el: Element, ns: string, name: string): Element[] =>
  Array.from(el.childNodes).filter(
    (n): n is Element => n.nodeType === 1 && (n as Element).namespaceURI === ns && (n as Element).localName === name,
  );

/** What every SAML request carries (SAML 2.0 core §3.2.1): its ID, version, issuer, instant and destination. */
export function requestHeader(root: Element, kind: 'AuthnRequest' | 'LogoutRequest') {
  const id = root.getAttribute('ID');
  if (!id || id.length > 256) return refuse(`the ${kind} has no ID`);
  if (root.getAttribute('Version') !== '2.0') return refuse(`the ${kind} is not SAML 2.0`);
  const issuers = childrenOf(root, ASSERTION, 'Issuer');
  const issuer = issuers.length === 1 ? (issuers[0]!.textContent ?? '').trim() : '';
  if (!issuer) return refuse(`the ${kind} names no issuer`);
  return {
    id,
    issuer,
    issueInstant: root.getAttribute('IssueInstant') ?? '',
    destination: root.getAttribute('Destination'),
  };
}

function fieldsOf(root: Element, xml: string): AuthnRequest {
  return {
    ...requestHeader(root, 'AuthnRequest'),
    acsUrl: root.getAttribute('AssertionConsumerServiceURL'),
    protocolBinding: root.getAttribute('ProtocolBinding'),
    xml,
  };
}

/** Reads the request; its signature is checked separately, once the issuer's certificate is known. */
export function readAuthnRequest(binding: Binding, encoded: string | undefined): AuthnRequest {
  const xml = decoded(binding, encoded);
  return fieldsOf(parsed(xml), xml);
}

/** One raw `name=value` pair of the query string, as sent. */
function rawParam(rawQuery: string, name: string): string | undefined {
  return rawQuery.split('&').find((p) => p.startsWith(`${name}=`));
}

/**
 * The redirect binding's signature (SAML Bindings §3.4.4.1): over `SAMLRequest=…&RelayState=…&SigAlg=…`
 * with each value exactly as it appears in the URL, by the key of the SP's certificate.
 */
export function checkRedirectSignature(
  rawQuery: string,
  query: Record<string, string | undefined>,
  certPem: string,
  kind: RequestKind = 'AuthnRequest',
) {
  const sigAlg = query.SigAlg;
  const signature = query.Signature;
  if (!sigAlg || !signature) return refuse(`the ${kind} is not signed`);
  if (!REDIRECT_SIG_ALGS.has(sigAlg)) return refuse('the signature algorithm is not accepted');
  const parts = ['SAMLRequest', 'RelayState', 'SigAlg'].map((n) => rawParam(rawQuery, n)).filter(Boolean);
  const metadata = samlify.ServiceProvider({ entityID: 'signer', signingCert: certPem }).entityMeta;
  let verified = false;
  try {
    verified = samlify.SamlLib.verifyMessageSignature(
      metadata,
      parts.join('&'),
      Buffer.from(signature, 'base64'),
      sigAlg,
    );
  } catch {
    verified = false;
  }
  if (!verified) refuse(`the ${kind} signature does not verify`);
}

/**
 * The POST binding's enveloped signature (SAML Bindings §3.5.4, SAML Core §5.4): a ds:Signature
 * child of the AuthnRequest, by the key of the SP's certificate, whose one reference is the
 * AuthnRequest itself (a signature over anything else signs nothing of this request).
 */
export function checkPostSignature(
  request: { id: string; xml: string },
  certPem: string,
  kind: RequestKind = 'AuthnRequest',
): void {
  const root = parsed(request.xml, kind);
  const signatures = childrenOf(root, DSIG, 'Signature');
  if (signatures.length !== 1) return refuse(`the ${kind} is not signed`);
  const sig = new SignedXml({ publicCert: certPem });
  let verified = false;
  try {
    sig.loadSignature(signatures[0]!.toString());
    verified = sig.checkSignature(request.xml);
  } catch {
    verified = false;
  }
  if (!verified) return refuse(`the ${kind} signature does not verify`);
  const references = sig.getSignedReferences();
  const signed = references.length === 1 ? parsed(references[0]!, kind) : null;
  if (!signed || signed.getAttribute('ID') !== request.id) refuse(`the signature does not cover the ${kind}`);
}

/** SAML Core §3.4.1: the response goes back on the HTTP-POST binding only. */
export const answersOnPost = (request: AuthnRequest) =>
  request.protocolBinding === null || request.protocolBinding === POST_BINDING;
