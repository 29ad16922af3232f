/**
 * The SAML service provider of a connection, made with @node-saml/node-saml: AuthnRequests on the
 * HTTP-Redirect binding, SP metadata, and the validation of a posted Response (the assertion's
 * signature against the pinned IdP certificate, its audience and time window with a small skew,
 * InResponseTo against the request ids kept in the memory store). IdP-initiated responses (no
 * InResponseTo) pass only when the connection allows them.
 */
import { randomBytes } from 'node:crypto';
import { SAML, ValidateInResponseTo, type CacheProvider, type Profile } from '@node-saml/node-saml';
import type { Config } from '../../core/config.js';
import type { MemoryStore } from '../../core/memory-store.js';
import type { SamlConnection } from './connections.js';
import { acsUrlOf, spEntityIdOf } from './paths.js';

/** SAML Core §3.4.1 leaves the request's validity to the SP; a login has ten minutes. */
export const REQUEST_TTL_MS = 10 * 60 * 1000;
/** The clock skew accepted on NotBefore / NotOnOrAfter (SAML Profiles §4.1.4.3 leaves it to the SP). */
export const CLOCK_SKEW_MS = 60 * 1000;
/** The longest an assertion is accepted after its IssueInstant; its id is remembered at least this long. */
export const MAX_ASSERTION_AGE_MS = 10 * 60 * 1000;

/** A SAML ID: an xs:ID (NCName), so it starts with an underscore (SAML Core §1.3.4). */
export const newRequestId = () => `_${randomBytes(20).toString('hex')}`;

/** node-saml's cache of outstanding request ids, kept in the memory store (shared by every node). */
function requestCache(memory: MemoryStore, connectionId: string): CacheProvider {
  const key = (id: string) => `org-saml:request:${connectionId}:${id}`;
  return {
    async saveAsync(id, value) {
      await memory.set(key(id), value, REQUEST_TTL_MS);
      return { value, createdAt: Date.now() };
    },
    getAsync: (id) => memory.get(key(id)),
    async removeAsync(id) {
      return id === null ? null : memory.consume(key(id));
    },
  };
}

export interface ConnectionEndpoints {
  spEntityId: string;
  acsUrl: string;
}

export const endpointsOf = (config: Config, c: SamlConnection, slug: string): ConnectionEndpoints => ({
  spEntityId: c.spEntityId ?? spEntityIdOf(config, slug),
  acsUrl: c.acsUrl ?? acsUrlOf(config, slug),
});

export function serviceProviderOf(
  memory: MemoryStore,
  c: SamlConnection,
  endpoints: ConnectionEndpoints,
  requestId: string = newRequestId(),
): SAML {
  return new SAML({
    issuer: endpoints.spEntityId,
    callbackUrl: endpoints.acsUrl,
    entryPoint: c.idpSsoUrl,
    idpCert: c.idpCertificate,
    idpIssuer: c.idpEntityId,
    audience: endpoints.spEntityId,
    // The assertion carries the identity, so its own signature is required; the envelope's is optional.
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    maxAssertionAgeMs: MAX_ASSERTION_AGE_MS,
    validateInResponseTo: c.allowIdpInitiated ? ValidateInResponseTo.ifPresent : ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: REQUEST_TTL_MS,
    cacheProvider: requestCache(memory, c.id),
    generateUniqueId: () => requestId,
    identifierFormat: null,
    disableRequestedAuthnContext: true,
  });
}

export type { Profile };
