/**
 * The SCIM User resource (RFC 7643 §4.1): the user record and its SCIM
 * attributes as one document. `active` is the user's access: revoked means inactive.
 */
import type { UserRecord } from '../../users/index.js';
import type { ScimEmail, ScimUserRow } from '../entities.js';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

export interface ScimUserResource {
  schemas: string[];
  id: string;
  externalId?: string;
  userName: string;
  name: { givenName?: string; familyName?: string };
  emails: ScimEmail[];
  active: boolean;
  meta: { resourceType: 'User'; created: string; lastModified: string; location: string };
}

/** The emails as stored, with the user's own address marked primary (it is the one that counts). */
function emailsOf(user: UserRecord, link: ScimUserRow): ScimEmail[] {
  const listed = (link.emails ?? []).map((e) => ({ ...e, primary: e.value.toLowerCase() === user.email }));
  if (user.email && !listed.some((e) => e.primary)) listed.unshift({ value: user.email, type: 'work', primary: true });
  return listed;
}

export function toScimUser(user: UserRecord, link: ScimUserRow, baseUrl: string): ScimUserResource {
  return {
    schemas: [USER_SCHEMA],
    id: user.id,
    ...(link.externalId !== null ? { externalId: link.externalId } : {}),
    userName: link.userName,
    name: {
      ...(user.givenName ? { givenName: user.givenName } : {}),
      ...(user.familyName ? { familyName: user.familyName } : {}),
    },
    emails: emailsOf(user, link),
    active: user.revokedTimestamp === null,
    meta: {
      resourceType: 'User',
      created: new Date(Number(link.createdAt)).toISOString(),
      lastModified: new Date(Math.max(Number(link.updatedAt), user.updatedAt * 1000)).toISOString(),
      location: `${baseUrl}/scim/v2/Users/${user.id}`,
    },
  };
}
