/**
 * The signed LogoutResponse the IdP answers a LogoutRequest with (SAML Core §3.7.2), on the
 * binding of the provider's SingleLogoutService: HTTP-Redirect with the detached signature over
 * the query (SAML Bindings §3.4.4.1), or HTTP-POST with an enveloped signature (§3.5.4). samlify
 * signs and fills its own template, escaping every value.
 */
import { randomBytes } from 'node:crypto';
import * as samlify from 'samlify';
import type { IdpEndpoints } from './idp-entity.js';
import type { IdpSigner } from './idp-keys.js';
import type { SingleLogout } from './service-providers.js';
import { SIGNATURE_ALGORITHM } from './signing-certificate.js';

const BINDING = samlify.Constants.namespace.binding;

export type LogoutAnswer = { binding: 'redirect'; location: string } | { binding: 'post'; samlResponse: string };

export function signedLogoutResponse(
  endpoints: IdpEndpoints,
  signer: IdpSigner,
  sp: { entityId: string; singleLogout: SingleLogout },
  answer: { inResponseTo: string; status: string; relayState: string | null },
): LogoutAnswer {
  const { url, binding } = sp.singleLogout;
  const idp = samlify.IdentityProvider({
    entityID: endpoints.entityId,
    privateKey: signer.privateKeyPem,
    signingCert: signer.key.certPem,
    requestSignatureAlgorithm: SIGNATURE_ALGORITHM,
    singleSignOnService: [{ Binding: BINDING.redirect, Location: endpoints.ssoUrl }],
    singleLogoutService: [{ Binding: BINDING[binding], Location: endpoints.sloUrl }],
  });
  const target = samlify.ServiceProvider({
    entityID: sp.entityId,
    singleLogoutService: [{ Binding: BINDING[binding], Location: url }],
    wantLogoutResponseSigned: true,
  });
  const values: Record<string, string> = {
    ID: `_${randomBytes(20).toString('hex')}`,
    IssueInstant: new Date().toISOString(),
    Destination: url,
    InResponseTo: answer.inResponseTo,
    Issuer: endpoints.entityId,
    StatusCode: answer.status,
  };
  const made = idp.createLogoutResponse(target, { extract: { request: { id: answer.inResponseTo } } }, binding, {
    relayState: answer.relayState ?? '',
    customTagReplacement: (template: string) => ({
      id: values.ID!,
      context: samlify.SamlLib.replaceTagsByValue(template, values),
    }),
  }) as { context: string };
  return binding === 'redirect' ? { binding, location: made.context } : { binding, samlResponse: made.context };
}
