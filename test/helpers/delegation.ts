/**
 * Agent delegation (RFC 8693 token exchange) as a test sets it up: an agent client's own
 * client-credentials token, exchanged with a user's access token for a delegated one.
 */

export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** A client registered at the server, as create_client answers it. */
export interface AgentClient {
  id: string;
  secret: string;
}

/** The access token `/oauth/token` answers for these form parameters; anything else throws with the answer. */
export async function accessToken(base: string, params: Record<string, string>): Promise<string> {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });
  const body = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200 || typeof body.access_token !== 'string')
    throw new Error(`token: ${res.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

/** The delegated token `agent` gets for the user holding `subjectToken` (its actor token: client credentials). */
export async function delegatedToken(base: string, agent: AgentClient, subjectToken: string): Promise<string> {
  const credentials = { client_id: agent.id, client_secret: agent.secret };
  const actor = await accessToken(base, { grant_type: 'client_credentials', ...credentials, scope: 'openid' });
  return accessToken(base, {
    grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
    ...credentials,
    subject_token: subjectToken,
    subject_token_type: ACCESS_TOKEN_TYPE,
    actor_token: actor,
    actor_token_type: ACCESS_TOKEN_TYPE,
  });
}

/** Registers an agent client through the admin API (`create_client`); throws with the answer unless 200. */
export async function createAgentClient(
  base: string,
  adminSecret: string,
  allowedScopes: readonly string[] = ['openid'],
): Promise<AgentClient> {
  const res = await fetch(`${base}/v1/admin/create_client`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base, 'x-service-admin-secret': adminSecret },
    body: JSON.stringify({ name: 'Agent', allowed_scopes: allowedScopes }),
  });
  const body = (await res.json()) as { client?: { client_id?: unknown }; client_secret?: unknown };
  if (res.status !== 200 || typeof body.client?.client_id !== 'string' || typeof body.client_secret !== 'string')
    throw new Error(`create_client: ${res.status} ${JSON.stringify(body)}`);
  return { id: body.client.client_id, secret: body.client_secret };
}
