/**
 * Assertions from trusted issuers (RFC 7523 §3, OIDC Core §9), checked step by step: for
 * `private_key_jwt` client authentication (§2.2, a failure is `invalid_client`) and for the JWT
 * bearer grant (§2.1, jwt-bearer-grant.ts, a failure is `invalid_grant`).
 */
import { createHash } from 'node:crypto';
import { decodeJwt, jwtVerify, type JWTPayload } from 'jose';
import type { RequestContext } from '../../core/context.js';
import type { OAuthClient } from '../client-registry/index.js';
import type { KeySets } from './key-sets.js';
import type { TrustedIssuerRecord, TrustedIssuerStore } from './service.js';

export const JWT_BEARER_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** Asymmetric algorithms only: a shared secret is not a trusted issuer's key. */
export const ASSERTION_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

/** Clock skew allowed on exp, nbf and iat. */
export const CLOCK_SKEW_SECONDS = 30;
/** Assertions are short-lived (RFC 7523 §3 item 4): one living longer than this is refused. */
export const MAX_LIFETIME_SECONDS = 3_600;

export type AssertionOutcome =
  { client: OAuthClient; issuer: TrustedIssuerRecord; subject: string } | { error: string };

export interface AssertionDeps {
  store: TrustedIssuerStore;
  keySets: KeySets;
  findClient(clientId: string): Promise<OAuthClient | null>;
}

const refused = (error: string): AssertionOutcome => ({ error });

function unverifiedClaims(assertion: string): JWTPayload | null {
  try {
    return decodeJwt(assertion);
  } catch {
    return null;
  }
}

const SPIFFE_ID = /^spiffe:\/\/[a-z0-9.-]+(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)+$/;

/** RFC 7523 §3 item 2: the subject is the client id, or a subject the issuer lists for it. */
function subjectAllowed(issuer: TrustedIssuerRecord, subject: string, clientId: string): boolean {
  if (issuer.issuerType === 'spiffe' && !SPIFFE_ID.test(subject)) return false;
  return subject === clientId || issuer.allowedSubjects.includes(subject);
}

/** Verifies the signature and the registered claims against one issuer's keys. */
async function verifyWith(
  deps: AssertionDeps,
  issuer: TrustedIssuerRecord,
  assertion: string,
): Promise<{ payload: JWTPayload } | { error: string }> {
  try {
    const { payload } = await jwtVerify(assertion, await deps.keySets.of(issuer), {
      issuer: issuer.issuerUrl,
      audience: issuer.expectedAud,
      algorithms: ASSERTION_ALGORITHMS,
      clockTolerance: CLOCK_SKEW_SECONDS,
      requiredClaims: ['exp', 'jti'],
    });
    return { payload };
  } catch (err) {
    return { error: `client assertion is invalid: ${(err as Error).message}` };
  }
}

/** One issuer that may have signed an assertion, with the client it authenticates. */
export interface Candidate {
  issuer: TrustedIssuerRecord;
  client: OAuthClient;
}

/**
 * Tries each candidate: signature and claims, then the subject rule; the first that holds has
 * its lifetime capped and its `jti` spent (RFC 7523 §3 items 4 and 7).
 */
export async function acceptAssertion(
  ctx: RequestContext,
  deps: AssertionDeps,
  candidates: readonly Candidate[],
  assertion: string,
): Promise<AssertionOutcome> {
  if (candidates.length === 0) return refused('no active trusted issuer signed the assertion');
  let failure = 'client assertion is invalid';
  for (const { issuer, client } of candidates) {
    const verified = await verifyWith(deps, issuer, assertion);
    if ('error' in verified) {
      failure = verified.error;
      continue;
    }
    const { payload } = verified;
    const subject = payload[issuer.subjectClaim];
    if (typeof subject !== 'string' || !subjectAllowed(issuer, subject, client.clientId)) {
      failure = 'assertion subject is not accepted';
      continue;
    }
    const now = Math.floor(Date.now() / 1000);
    const exp = payload.exp as number;
    if (exp - now > MAX_LIFETIME_SECONDS) return refused('assertion lives too long');
    // A jti is used once per issuer; kept until the assertion could no longer pass.
    const key = [issuer.issuerUrl, String(payload.jti)].map((v) => createHash('sha256').update(v).digest('base64url'));
    const ttlMs = (Math.max(exp - now, 0) + CLOCK_SKEW_SECONDS) * 1000;
    const fresh = await ctx.kernel.memory.setIfAbsent(`trusted-issuers:jti:${key[0]}:${key[1]}`, '1', ttlMs);
    if (!fresh) return refused('assertion was already used');
    return { client, issuer, subject };
  }
  return refused(failure);
}

/** The issuer named by the unverified `iss`, or null for a token that is no JWT. */
export function claimedIssuer(assertion: string): { iss: string; sub?: string } | null {
  const claims = unverifiedClaims(assertion);
  if (!claims || typeof claims.iss !== 'string') return null;
  return { iss: claims.iss, ...(typeof claims.sub === 'string' ? { sub: claims.sub } : {}) };
}

/** `private_key_jwt` (RFC 7523 §2.2): the assertion authenticates the client it names. */
export async function authenticateAssertion(
  ctx: RequestContext,
  deps: AssertionDeps,
  input: { clientId?: string; assertionType: string; assertion: string },
): Promise<AssertionOutcome> {
  if (input.assertionType !== JWT_BEARER_ASSERTION_TYPE) return refused('unsupported client_assertion_type');
  const claimed = claimedIssuer(input.assertion);
  if (!claimed) return refused('client assertion is malformed');
  // RFC 7523 §3: client_id may be omitted, the subject then names the client.
  const clientId = input.clientId ?? claimed.sub;
  if (!clientId) return refused('client assertion names no client');
  const client = await deps.findClient(clientId);
  if (!client || client.builtIn) return refused('unknown client');
  if (client.metadataDocument) return documentAssertion(ctx, deps, client, claimed.iss, input.assertion);
  const issuers = (await deps.store.ofClient(client.id)).filter((i) => i.isActive && i.issuerUrl === claimed.iss);
  return acceptAssertion(
    ctx,
    deps,
    issuers.map((issuer) => ({ issuer, client })),
    input.assertion,
  );
}

/**
 * A client ID metadata document client with `private_key_jwt` signs its own assertions (RFC 7523
 * §3): `iss` and `sub` are its client id, the keys are at its document's `jwks_uri` (fetched
 * through the guarded client like any JWKS), and `aud` is this service's token endpoint.
 */
async function documentAssertion(
  ctx: RequestContext,
  deps: AssertionDeps,
  client: OAuthClient,
  iss: string,
  assertion: string,
): Promise<AssertionOutcome> {
  const jwksUri = client.metadataDocument?.jwksUri;
  if (!jwksUri) return refused('this client authenticates without a client assertion');
  if (iss !== client.clientId) return refused('the assertion issuer must be the client id');
  const base = new URL(ctx.kernel.config.string('url') ?? 'http://localhost');
  const now = Date.now();
  const issuer: TrustedIssuerRecord = {
    id: client.clientId,
    serviceAccountId: client.clientId,
    name: client.name,
    issuerUrl: client.clientId,
    keySourceType: 'static_jwks_url',
    jwksUrl: jwksUri,
    expectedAud: `${base.protocol}//${base.host}${base.pathname.replace(/\/+$/, '')}/oauth/token`,
    subjectClaim: 'sub',
    allowedSubjects: [],
    issuerType: 'generic',
    isActive: true,
    createdAt: now,
    updatedAt: now,
  };
  return acceptAssertion(ctx, deps, [{ issuer, client }], assertion);
}
