/** Schemas of the organization operations (wire types Organization, OrgMember, UserOrganization and requests). */
import {
  Bool,
  Id,
  InputObject,
  Int64,
  OptBool,
  OptStr,
  OptStrList,
  OutputObject,
  Pagination,
  PaginationRequest,
  Str,
  Type,
} from '../../core/schema.js';

export const Organization = OutputObject('Organization', {
  id: Type.String(),
  /** The unique slug. */
  name: Type.String(),
  display_name: Type.Optional(Type.String()),
  enabled: Bool(),
  created_at: Int64(),
  updated_at: Int64(),
});

export const OrgMember = OutputObject('OrgMember', {
  id: Type.String(),
  org_id: Type.String(),
  user_id: Type.String(),
  email: Type.Optional(Type.String()),
  given_name: Type.Optional(Type.String()),
  family_name: Type.Optional(Type.String()),
  roles: Type.Array(Type.String()),
  created_at: Int64(),
});

export const UserOrganization = OutputObject('UserOrganization', {
  organization: Organization,
  roles: Type.Array(Type.String()),
});

const roles = () =>
  OptStrList({ maxItems: 20, maxLength: 64, description: 'Org roles; `service:org_admin` administers the org.' });

export const CreateOrganizationRequest = InputObject('CreateOrganizationRequest', {
  name: Str({ max: 64, min: 1, description: 'Unique slug: lowercase letters, digits and inner hyphens.' }),
  display_name: OptStr({ max: 256 }),
});

export const UpdateOrganizationRequest = InputObject('UpdateOrganizationRequest', {
  id: Id(),
  name: OptStr({ max: 64, min: 1 }),
  display_name: OptStr({ max: 256 }),
  enabled: OptBool(),
});

export const OrganizationRequest = InputObject('OrganizationRequest', { id: Id() });

export const ListOrganizationsRequest = InputObject('ListOrganizationsRequest', {
  pagination: Type.Optional(PaginationRequest),
});

export const Organizations = OutputObject('Organizations', {
  pagination: Pagination,
  organizations: Type.Array(Organization),
});

export const AddOrgMemberRequest = InputObject('AddOrgMemberRequest', {
  org_id: Id(),
  user_id: Id(),
  roles: roles(),
});

export const RemoveOrgMemberRequest = InputObject('RemoveOrgMemberRequest', { org_id: Id(), user_id: Id() });

export const ListOrgMembersRequest = InputObject('ListOrgMembersRequest', {
  org_id: Id(),
  pagination: Type.Optional(PaginationRequest),
});

export const OrgMembers = OutputObject('OrgMembers', {
  pagination: Pagination,
  org_members: Type.Array(OrgMember),
});

export const UserOrganizationsRequest = InputObject('UserOrganizationsRequest', { user_id: Id() });

export const UserOrganizations = OutputObject('UserOrganizations', {
  user_organizations: Type.Array(UserOrganization),
});
