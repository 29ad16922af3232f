/**
 * The consent step for self-registered clients (dynamic registration or a client ID metadata
 * document): a consent screen always precedes code issue. Their identity is self-asserted, so the user sees
 * who asks before any code: the page leads with the redirect host, names the client and scopes,
 * and warns when every redirect URI is loopback. The decision is posted with a single-use ticket
 * bound to the browser session; an approval is remembered per user and client for the scopes
 * granted, so a later request for no more scopes goes straight through. A client ID metadata
 * document client is asked every time: its document can change after an approval (its redirect
 * URIs with it), so an approval admits only the one request it was given for.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { RequestContext } from '../../../core/context.js';
import type { RawRequest, RawResponse, RawRoute } from '../../../core/plugin.js';
import type { SessionRecord } from '../../sessions/index.js';
import { OAuthError } from '../errors.js';
import { readParams, type Params } from '../params.js';
import type { AuthorizationRequest } from './request.js';
import { deliver, errorPage, esc } from './respond.js';

const TICKET_TTL_MS = 10 * 60 * 1000;
const CONSENT_TTL_MS = 365 * 24 * 60 * 60 * 1000;
export const CONSENT_PATH = '/authorize/consent';

const consentKey = (userId: string, clientId: string) => `oauth-consent:${userId}:${clientId}`;
const ticketKey = (ticket: string) => `oauth-consent-ticket:${ticket}`;
const onceKey = (sessionId: string, clientId: string, query: string) =>
  `oauth-consent-once:${sessionId}:${createHash('sha256').update(`${clientId}\n${query}`).digest('base64url')}`;

interface Ticket {
  sessionId: string;
  userId: string;
  clientId: string;
  scopes: string[];
  redirectUri: string;
  state?: string;
  mode: string;
  query: string;
  /** The approval admits this one request only (a metadata-document client). */
  once?: boolean;
}

/**
 * Whether the user has approved this client for at least these scopes; for a metadata-document
 * client, whether this very request (`query`) was just approved in this browser session.
 */
export async function consented(
  ctx: RequestContext,
  session: SessionRecord,
  req: AuthorizationRequest,
  query: string,
): Promise<boolean> {
  if (req.client.metadataDocument)
    return (await ctx.kernel.memory.consume(onceKey(session.id, req.client.clientId, query))) !== null;
  const kept = await ctx.kernel.memory.get(consentKey(session.userId, req.client.clientId));
  if (!kept) return false;
  const granted = JSON.parse(kept) as string[];
  return req.scopes.every((s) => granted.includes(s));
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Where the client's self-asserted identity comes from. */
function origin(req: AuthorizationRequest): string {
  if (!req.client.metadataDocument) return 'it registered itself';
  return `its description is published by ${esc(new URL(req.client.clientId).host)}`;
}

export async function consentPage(
  ctx: RequestContext,
  session: SessionRecord,
  req: AuthorizationRequest,
  query: string,
): Promise<RawResponse> {
  const ticket = randomBytes(24).toString('base64url');
  const kept: Ticket = {
    sessionId: session.id,
    userId: session.userId,
    clientId: req.client.clientId,
    scopes: req.scopes,
    redirectUri: req.redirectUri,
    mode: req.responseMode,
    query,
    ...(req.client.metadataDocument ? { once: true } : {}),
    ...(req.state !== undefined ? { state: req.state } : {}),
  };
  await ctx.kernel.memory.set(ticketKey(ticket), JSON.stringify(kept), TICKET_TTL_MS);
  const host = new URL(req.redirectUri).host;
  const allLoopback = req.client.redirectUris.every((u) => LOOPBACK.has(new URL(u).hostname));
  const warning = allLoopback
    ? '<p><strong>Warning:</strong> this application only returns to this computer (a loopback address). Continue only if you started it yourself.</p>'
    : '';
  const scopes = req.scopes.map((s) => `<li>${esc(s)}</li>`).join('');
  return {
    status: 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy':
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
      // The form's post must carry this origin (the CSRF rule); `no-referrer` would make it `null`.
      'referrer-policy': 'same-origin',
    },
    body:
      `<!doctype html><html><head><meta charset="utf-8"><title>Allow access?</title></head><body>` +
      `<h1>${esc(host)} wants to access your account</h1>` +
      `<p>The application calls itself <em>${esc(req.client.name)}</em>; ${origin(req)}, so that name is not verified.</p>` +
      warning +
      `<p>It asks for:</p><ul>${scopes}</ul>` +
      `<form method="post" action="${CONSENT_PATH}"><input type="hidden" name="ticket" value="${esc(ticket)}">` +
      `<button type="submit" name="decision" value="allow">Allow</button> ` +
      `<button type="submit" name="decision" value="deny">Deny</button></form></body></html>`,
  };
}

async function decide(req: RawRequest, ctx: RequestContext): Promise<RawResponse> {
  let params: Params;
  try {
    params = readParams(req.body);
  } catch (err) {
    // A repeated or oversized field (RFC 6749 §3.1): the form was not this page's.
    if (err instanceof OAuthError) return errorPage(400, 'invalid_request', err.description);
    throw err;
  }
  const session = await ctx.kernel.service('sessions').fromRequest(ctx);
  const text =
    params.ticket && params.ticket.length <= 128 ? await ctx.kernel.memory.consume(ticketKey(params.ticket)) : null;
  const ticket = text ? (JSON.parse(text) as Ticket) : null;
  if (!ticket || !session || session.id !== ticket.sessionId) {
    return errorPage(400, 'invalid_request', 'the consent request expired or belongs to another sign-in; start again');
  }
  if (params.decision !== 'allow') {
    return deliver(ticket.mode as Parameters<typeof deliver>[0], ticket.redirectUri, {
      error: 'access_denied',
      error_description: 'the user denied access',
      ...(ticket.state !== undefined ? { state: ticket.state } : {}),
    });
  }
  if (ticket.once) {
    await ctx.kernel.memory.set(onceKey(ticket.sessionId, ticket.clientId, ticket.query), '1', TICKET_TTL_MS);
    return { status: 303, headers: { location: `/authorize?${ticket.query}`, 'cache-control': 'no-store' } };
  }
  const key = consentKey(ticket.userId, ticket.clientId);
  const before = await ctx.kernel.memory.get(key);
  const granted = new Set([...(before ? (JSON.parse(before) as string[]) : []), ...ticket.scopes]);
  await ctx.kernel.memory.set(key, JSON.stringify([...granted]), CONSENT_TTL_MS);
  return { status: 303, headers: { location: `/authorize?${ticket.query}`, 'cache-control': 'no-store' } };
}

export const consentRoute: RawRoute = { method: 'POST', path: CONSENT_PATH, form: true, handler: decide };
