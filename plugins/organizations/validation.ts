/** Input rules of organizations and memberships, checked before anything is written. */
import { invalidArgument } from '../../core/errors.js';

/** The unique slug (schema.graphql `Organization.name`): it appears in URLs such as `/oauth/saml/<org_slug>/login`. */
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const ROLE = /^[A-Za-z0-9][A-Za-z0-9:_.-]{0,63}$/;

export function checkSlug(name: string): string {
  if (!SLUG.test(name)) {
    throw invalidArgument(
      'invalid name: use 1 to 64 lowercase letters, digits and hyphens, starting and ending with a letter or digit',
    );
  }
  return name;
}

export function checkDisplayName(value: string): string {
  const trimmed = value.trim();
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) throw invalidArgument('invalid display_name: control characters');
  return trimmed;
}

/** Org roles: distinct, each a token such as `service:org_admin` or `member`. */
export function checkRoles(roles: readonly string[]): string[] {
  for (const r of roles) {
    if (!ROLE.test(r)) throw invalidArgument(`invalid roles: "${r.slice(0, 64)}" is not a role name`);
  }
  return [...new Set(roles)];
}
