/** Talks SCIM to a started server as an identity provider does: bearer token, application/scim+json. */
import type { TestServer } from '../../helpers/server.js';

export interface ScimAnswer {
  status: number;
  contentType: string | null;
  headers: Headers;
  body: Record<string, unknown> | null;
}

export async function scim(
  server: TestServer,
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
  options: { raw?: string; contentType?: string } = {},
): Promise<ScimAnswer> {
  const headers: Record<string, string> = { accept: 'application/scim+json' };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const payload = options.raw ?? (body === undefined ? undefined : JSON.stringify(body));
  if (payload !== undefined) headers['content-type'] = options.contentType ?? 'application/scim+json';
  const res = await fetch(`${server.url}/scim/v2${path}`, { method, headers, body: payload });
  const text = await res.text();
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    headers: res.headers,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : null,
  };
}

export const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
