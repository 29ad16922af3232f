/**
 * Calls a started server the way an API client does: REST with the Origin header state-changing
 * posts need (CSRF), GraphQL, and the sign-up that makes a user with a
 * bearer token. Shared by the organization, domain, discovery and SCIM tests.
 */
import { TEST_ADMIN_SECRET, type TestServer } from '../../helpers/server.js';

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

export type Caller = { admin: true } | { bearer: string } | Record<string, never>;

function headersOf(server: TestServer, who: Caller): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json', origin: server.url };
  if ('admin' in who) h['x-service-admin-secret'] = TEST_ADMIN_SECRET;
  if ('bearer' in who) h.authorization = `Bearer ${who.bearer}`;
  return h;
}

/** POST /v1/<path> (admin operations: `admin/<name>`). */
export async function rest(server: TestServer, path: string, body: unknown, who: Caller = {}): Promise<Answer> {
  const res = await fetch(`${server.url}/v1/${path}`, {
    method: 'POST',
    headers: headersOf(server, who),
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

export interface GraphqlAnswer {
  status: number;
  data: Record<string, unknown> | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

export async function graphql(
  server: TestServer,
  query: string,
  variables: Record<string, unknown>,
  who: Caller = {},
): Promise<GraphqlAnswer> {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: headersOf(server, who),
    body: JSON.stringify({ query, variables }),
  });
  const json = (await res.json()) as Omit<GraphqlAnswer, 'status'>;
  return { status: res.status, ...json };
}

/** An admin REST call that must succeed. */
export async function admin(server: TestServer, name: string, body: unknown): Promise<Record<string, unknown>> {
  const answer = await rest(server, `admin/${name}`, body, { admin: true });
  if (answer.status !== 200) throw new Error(`${name}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

export interface SignedUp {
  userId: string;
  token: string;
}

export async function signUp(server: TestServer, email: string): Promise<SignedUp> {
  const password = 'Secret-123';
  const answer = await rest(server, 'signup', { email, password, confirm_password: password });
  if (answer.status !== 200) throw new Error(`signup: ${answer.status} ${JSON.stringify(answer.body)}`);
  const user = answer.body.user as { id: string };
  return { userId: user.id, token: answer.body.access_token as string };
}

/** An organization with one org admin (a signed-up user holding `service:org_admin`). */
export async function orgWithAdmin(server: TestServer, slug: string): Promise<{ orgId: string; admin: SignedUp }> {
  const org = await admin(server, 'create_organization', { name: slug, display_name: `${slug} Inc.` });
  const user = await signUp(server, `admin@${slug}.example`);
  await admin(server, 'add_org_member', { org_id: org.id, user_id: user.userId, roles: ['service:org_admin'] });
  return { orgId: org.id as string, admin: user };
}
