/**
 * The login's state, kept server side. An SP-initiated login stores the application's request in
 * the memory store under the AuthnRequest's id (ten minutes) and binds it to the browser by a
 * cookie scoped to /oauth/saml/. The IdP's answer is a cross-site POST that carries no
 * SameSite=Lax cookie, so the ACS validates the response, parks the verified identity under a
 * single-use ticket and sends the browser to a same-site GET that carries the cookie; there the
 * login is matched to the browser that started it (login CSRF, SAML Profiles §4.1.5 leaves it to
 * the SP) before anyone is signed in.
 */
import { randomBytes } from 'node:crypto';
import type { RequestContext } from '../../core/context.js';
import type { LoginRequest, SocialProfile } from '../social/index.js';
import { REQUEST_TTL_MS } from './service-provider.js';

export const REQUEST_COOKIE = 'org_saml_request';
const TICKET_TTL_MS = 60 * 1000;
const pendingKey = (requestId: string) => `org-saml:pending:${requestId}`;
const ticketKey = (ticket: string) => `org-saml:ticket:${ticket}`;

export interface PendingSamlLogin {
  connectionId: string;
  slug: string;
  request: LoginRequest;
}

/** A verified identity waiting for the same-site step; `requestId` is null for an IdP-initiated login. */
export interface VerifiedSamlLogin {
  connectionId: string;
  slug: string;
  requestId: string | null;
  profile: SocialProfile;
  /** The application's request of an IdP-initiated login, from its RelayState. */
  request?: LoginRequest;
}

const cookieOptions = (ctx: RequestContext) => ({
  httpOnly: true,
  secure: ctx.kernel.config.string('url', '').startsWith('https:'),
  sameSite: 'lax' as const,
  path: '/oauth/saml/',
});

export async function savePending(ctx: RequestContext, requestId: string, pending: PendingSamlLogin): Promise<void> {
  await ctx.kernel.memory.set(pendingKey(requestId), JSON.stringify(pending), REQUEST_TTL_MS);
  ctx.setCookie(REQUEST_COOKIE, requestId, { ...cookieOptions(ctx), maxAge: REQUEST_TTL_MS / 1000 });
}

/** The pending login of a request id when this browser started it, consumed; null otherwise. */
export async function takePending(ctx: RequestContext, requestId: string): Promise<PendingSamlLogin | null> {
  if (ctx.cookie(REQUEST_COOKIE) !== requestId) return null;
  ctx.clearCookie(REQUEST_COOKIE, cookieOptions(ctx));
  const text = await ctx.kernel.memory.consume(pendingKey(requestId));
  return text ? (JSON.parse(text) as PendingSamlLogin) : null;
}

export async function parkVerified(ctx: RequestContext, verified: VerifiedSamlLogin): Promise<string> {
  const ticket = randomBytes(32).toString('base64url');
  await ctx.kernel.memory.set(ticketKey(ticket), JSON.stringify(verified), TICKET_TTL_MS);
  return ticket;
}

export async function takeVerified(ctx: RequestContext, ticket: string | undefined): Promise<VerifiedSamlLogin | null> {
  if (!ticket || ticket.length > 128) return null;
  const text = await ctx.kernel.memory.consume(ticketKey(ticket));
  return text ? (JSON.parse(text) as VerifiedSamlLogin) : null;
}
