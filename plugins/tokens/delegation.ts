/**
 * Delegated tokens (RFC 8693 §4.1 `act`): a token whose actor is `agent:<client_id>` stands for
 * the user acting through that agent. Its caller is an `agent` principal, whose FGA checks are the
 * intersection of agent and user.
 */
import type { Principal } from '../../core/context.js';

export const AGENT_PREFIX = 'agent:';

export function delegatedPrincipal(principal: Principal): Principal {
  const act = principal.claims?.act as { sub?: unknown } | undefined;
  if (!act || typeof act.sub !== 'string' || !act.sub.startsWith(AGENT_PREFIX)) return principal;
  principal.kind = 'agent';
  principal.clientId = act.sub.slice(AGENT_PREFIX.length);
  return principal;
}
