/**
 * Organizations and their members (wire types Organization, OrgMember).
 * `name` is the organization's unique slug; a member's org roles are JSON text so they read the
 * same on every driver. One membership per (organization, user), enforced by a unique index.
 */
import { defineEntity } from '@mikro-orm/core';

export interface OrganizationRow {
  id: string;
  name: string;
  displayName: string | null;
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface OrgMemberRow {
  id: string;
  orgId: string;
  userId: string;
  roles: string[];
  createdAt: number;
}

export const OrganizationEntity = defineEntity({
  name: 'LatchkeyOrganization',
  tableName: 'latchkey_organizations',
  properties: (p) => ({
    id: p.string().primary().length(64),
    name: p.string().length(64).unique(),
    displayName: p.string().length(256).nullable().fieldName('display_name'),
    enabled: p.boolean(),
    createdAt: p.bigint('number').fieldName('created_at'),
    updatedAt: p.bigint('number').fieldName('updated_at'),
  }),
});

export const OrgMemberEntity = defineEntity({
  name: 'LatchkeyOrgMember',
  tableName: 'latchkey_org_members',
  uniques: [{ properties: ['orgId', 'userId'] }],
  properties: (p) => ({
    id: p.string().primary().length(64),
    orgId: p.string().length(64).fieldName('org_id').index(),
    userId: p.string().length(64).fieldName('user_id').index(),
    roles: p.json<string[]>(),
    createdAt: p.bigint('number').fieldName('created_at'),
  }),
});
