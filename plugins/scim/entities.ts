/**
 * SCIM records ("Authentication/SCIM"): one endpoint per organization with
 * its bearer token's digest (never the token), and per provisioned user the SCIM attributes the
 * user record does not hold (userName, externalId, the emails list as sent), keyed by user id.
 * `userNameKey` is the lowercase userName: unique per organization (RFC 7643 §4.1.1 userName is
 * case-insensitive and unique).
 */
import { defineEntity } from '@mikro-orm/core';

export interface ScimEndpointRow {
  id: string;
  orgId: string;
  enabled: boolean;
  tokenDigest: string;
  createdAt: number;
  updatedAt: number;
}

export interface ScimEmail {
  value: string;
  type?: string;
  primary?: boolean;
}

export interface ScimUserRow {
  userId: string;
  orgId: string;
  userName: string;
  userNameKey: string;
  externalId: string | null;
  emails: ScimEmail[];
  createdAt: number;
  updatedAt: number;
}

export const ScimEndpointEntity = defineEntity({
  name: 'LatchkeyScimEndpoint',
  tableName: 'latchkey_scim_endpoints',
  properties: (p) => ({
    id: p.string().primary().length(64),
    orgId: p.string().length(64).fieldName('org_id').unique(),
    enabled: p.boolean(),
    tokenDigest: p.string().length(128).fieldName('token_digest'),
    createdAt: p.bigint('number').fieldName('created_at'),
    updatedAt: p.bigint('number').fieldName('updated_at'),
  }),
});

export const ScimUserEntity = defineEntity({
  name: 'LatchkeyScimUser',
  tableName: 'latchkey_scim_users',
  uniques: [{ properties: ['orgId', 'userNameKey'] }],
  properties: (p) => ({
    userId: p.string().primary().length(64).fieldName('user_id'),
    orgId: p.string().length(64).fieldName('org_id').index(),
    userName: p.string().length(256).fieldName('user_name'),
    userNameKey: p.string().length(256).fieldName('user_name_key'),
    externalId: p.string().length(256).nullable().fieldName('external_id'),
    emails: p.json<ScimEmail[]>(),
    createdAt: p.bigint('number').fieldName('created_at'),
    updatedAt: p.bigint('number').fieldName('updated_at'),
  }),
});

/**
 * A provisioned group (an addition: the API's SCIM surface defines no Groups): its name and externalId here, its
 * members as FGA tuples `user:<id> member group:<id>` (groups.ts), so provisioned groups drive
 * permission checks. `displayNameKey` is the lowercase name, unique per organization.
 */
export interface ScimGroupRow {
  id: string;
  orgId: string;
  displayName: string;
  displayNameKey: string;
  externalId: string | null;
  createdAt: number;
  updatedAt: number;
}

export const ScimGroupEntity = defineEntity({
  name: 'LatchkeyScimGroup',
  tableName: 'latchkey_scim_groups',
  uniques: [{ properties: ['orgId', 'displayNameKey'] }],
  properties: (p) => ({
    id: p.string().primary().length(64),
    orgId: p.string().length(64).fieldName('org_id').index(),
    displayName: p.string().length(256).fieldName('display_name'),
    displayNameKey: p.string().length(256).fieldName('display_name_key'),
    externalId: p.string().length(256).nullable().fieldName('external_id'),
    createdAt: p.bigint('number').fieldName('created_at'),
    updatedAt: p.bigint('number').fieldName('updated_at'),
  }),
});
