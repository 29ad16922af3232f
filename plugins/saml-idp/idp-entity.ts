/**
 * The organization's identity provider as samlify sees it: its metadata (SAML Metadata §2.4.3:
 * entity id, every published signing certificate, the SSO service on both bindings) and the
 * signed Response it sends a service provider (SAML Profiles §4.1.4.2: the assertion and the
 * Response both signed by the current key, audience the SP, bearer confirmation to its ACS,
 * InResponseTo its request). samlify signs (xml-crypto) and fills its own templates, escaping
 * every value; only the statement skeletons are given here.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as samlify from 'samlify';
import type { UserRecord } from '../users/index.js';
import type { IdpKey, IdpSigner } from './idp-keys.js';
import { attributesOf, NAME_ID_FORMATS } from './attributes.js';
import type { ServiceProvider } from './service-providers.js';
import { SIGNATURE_ALGORITHM } from './signing-certificate.js';

const BINDING = samlify.Constants.namespace.binding;
/** How long an assertion is good for (SAML Core §2.5.1.2 leaves it to the issuer): a POST's round trip. */
const ASSERTION_TTL_MS = 5 * 60 * 1000;
const ATTRIBUTE_NAME_FORMAT = 'urn:oasis:names:tc:SAML:2.0:attrname-format:basic';
const AUTHN_STATEMENT =
  '<saml:AuthnStatement AuthnInstant="{AuthnInstant}" SessionIndex="{SessionIndex}"><saml:AuthnContext>' +
  '<saml:AuthnContextClassRef>{AuthnContextClassRef}</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>';
const PASSWORD_CLASS = 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport';
const UNSPECIFIED_CLASS = 'urn:oasis:names:tc:SAML:2.0:ac:classes:unspecified';

export interface IdpEndpoints {
  entityId: string;
  ssoUrl: string;
  sloUrl: string;
}

const ssoServices = (endpoints: IdpEndpoints) => [
  { Binding: BINDING.redirect, Location: endpoints.ssoUrl },
  { Binding: BINDING.post, Location: endpoints.ssoUrl },
];
const sloServices = (endpoints: IdpEndpoints) => [
  { Binding: BINDING.redirect, Location: endpoints.sloUrl },
  { Binding: BINDING.post, Location: endpoints.sloUrl },
];

export function idpMetadata(endpoints: IdpEndpoints, published: IdpKey[]): string {
  return samlify
    .IdentityProvider({
      entityID: endpoints.entityId,
      signingCert: published.map((k) => k.certPem),
      singleSignOnService: ssoServices(endpoints),
      singleLogoutService: sloServices(endpoints),
      nameIDFormat: Object.values(NAME_ID_FORMATS),
      wantAuthnRequestsSigned: false,
    })
    .getMetadata();
}

export interface SignIn {
  user: UserRecord;
  nameId: string;
  /** Unix seconds of the user's authentication. */
  authTime: number;
  amr: string[];
  /** Stands for the browser session in the assertion without naming it. */
  sessionId: string;
  /** The AuthnRequest's ID; null for an IdP-initiated response. */
  inResponseTo: string | null;
}

const newId = () => `_${randomBytes(20).toString('hex')}`;

/** The assertion's SessionIndex for a browser session: stands for it without naming it. */
export const sessionIndexOf = (sessionId: string): string =>
  `_${createHash('sha256').update(sessionId).digest('hex').slice(0, 40)}`;

/** The base64 Response for the HTTP-POST binding (SAML Bindings §3.5.4). */
export async function signedResponse(
  endpoints: IdpEndpoints,
  signer: IdpSigner,
  sp: ServiceProvider,
  signIn: SignIn,
): Promise<string> {
  const attributes = attributesOf(signIn.user, sp.mappedAttributes);
  const idp = samlify.IdentityProvider({
    entityID: endpoints.entityId,
    privateKey: signer.privateKeyPem,
    signingCert: signer.key.certPem,
    requestSignatureAlgorithm: SIGNATURE_ALGORITHM,
    singleSignOnService: ssoServices(endpoints),
    nameIDFormat: [sp.nameIdFormat],
    loginResponseTemplate: {
      // No attribute, no AttributeStatement (SAML Core §2.7.3 wants at least one Attribute in it).
      context: samlify.SamlLib.defaultLoginResponseTemplate.context
        .replace('{AuthnStatement}', AUTHN_STATEMENT)
        .replace('{AttributeStatement}', attributes.length > 0 ? '{AttributeStatement}' : ''),
      // samlify builds the AttributeStatement and fills each value by its tag (attrV0, attrV1, ...).
      attributes: attributes.map((a, i) => ({
        name: a.name,
        valueTag: `v${i}`,
        nameFormat: ATTRIBUTE_NAME_FORMAT,
        valueXsiType: 'xs:string',
      })),
    },
  });
  const target = samlify.ServiceProvider({
    entityID: sp.entityId,
    assertionConsumerService: [{ Binding: BINDING.post, Location: sp.acsUrl }],
    wantAssertionsSigned: true,
    wantMessageSigned: true,
  });
  const now = new Date();
  const until = new Date(now.getTime() + ASSERTION_TTL_MS).toISOString();
  const values: Record<string, string | null> = {
    ID: newId(),
    AssertionID: newId(),
    Destination: sp.acsUrl,
    Audience: sp.entityId,
    SubjectRecipient: sp.acsUrl,
    Issuer: endpoints.entityId,
    IssueInstant: now.toISOString(),
    StatusCode: samlify.Constants.StatusCode.Success,
    ConditionsNotBefore: now.toISOString(),
    ConditionsNotOnOrAfter: until,
    SubjectConfirmationDataNotOnOrAfter: until,
    NameIDFormat: sp.nameIdFormat,
    NameID: signIn.nameId,
    // Absent (the attribute dropped) for an IdP-initiated response (SAML Profiles §4.1.5).
    InResponseTo: signIn.inResponseTo,
    AuthnInstant: new Date(signIn.authTime * 1000).toISOString(),
    SessionIndex: sessionIndexOf(signIn.sessionId),
    AuthnContextClassRef: signIn.amr.includes('pwd') ? PASSWORD_CLASS : UNSPECIFIED_CLASS,
    ...Object.fromEntries(attributes.map((a, i) => [`attrV${i}`, a.value])),
  };
  const response = await idp.createLoginResponse(target, { extract: {} }, 'post', {}, (template: string) => ({
    id: values.ID!,
    context: samlify.SamlLib.replaceTagsByValue(template, values),
  }));
  return (response as { context: string }).context;
}
