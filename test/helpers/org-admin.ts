/**
 * An organization's admin, for the tests that check one organization's admin cannot reach
 * another's records: a user signed up at the server and made `service:org_admin` of the
 * organization, with a way to call admin operations with their bearer token.
 */
export interface OrgAdmin {
  userId: string;
  token: string;
  /** Posts an admin operation as this org admin; the status and the JSON body. */
  call(op: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
}

export async function orgAdminOf(
  base: string,
  orgId: string,
  admin: (op: string, body: unknown) => Promise<unknown>,
  email = 'boss@globex.example',
): Promise<OrgAdmin> {
  const password = 'Globex-pass-1';
  const signup = await fetch(`${base}/v1/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ email, password, confirm_password: password }),
  });
  const boss = (await signup.json()) as { access_token: string; user: { id: string } };
  await admin('add_org_member', { org_id: orgId, user_id: boss.user.id, roles: ['service:org_admin'] });
  return {
    userId: boss.user.id,
    token: boss.access_token,
    call: (op, body) =>
      fetch(`${base}/v1/admin/${op}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${boss.access_token}`, origin: base },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> })),
  };
}
