/** API views of organizations and members (wire types Organization, OrgMember; times in Unix seconds). */
import type { UserRecord } from '../users/index.js';
import type { Organization, OrgMembership } from './service.js';

export function organizationView(o: Organization) {
  return {
    id: o.id,
    name: o.name,
    ...(o.displayName !== null ? { display_name: o.displayName } : {}),
    enabled: o.enabled,
    created_at: Math.floor(o.createdAt / 1000),
    updated_at: Math.floor(o.updatedAt / 1000),
  };
}

export function memberView(m: OrgMembership, user: UserRecord | null) {
  return {
    id: m.id,
    org_id: m.orgId,
    user_id: m.userId,
    ...(user?.email ? { email: user.email } : {}),
    ...(user?.givenName ? { given_name: user.givenName } : {}),
    ...(user?.familyName ? { family_name: user.familyName } : {}),
    roles: m.roles,
    created_at: Math.floor(m.createdAt / 1000),
  };
}
