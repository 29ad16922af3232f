/**
 * The one filter supported on GET /Users: `userName eq "<value>"`, the identity
 * providers' duplicate probe. Parsed with scim2-parse-filter (RFC 7644 §3.4.2.2's grammar);
 * anything else is refused as `invalidFilter`.
 */
import { parse } from 'scim2-parse-filter';
import { badRequest } from './scim-error.js';

export function userNameOfFilter(filter: string): string {
  return equalityValue(filter, /^(urn:ietf:params:scim:schemas:core:2\.0:User:)?userName$/i, 'userName');
}

/** Groups: `displayName eq "<value>"`, the providers' probe for an existing group. */
export function displayNameOfFilter(filter: string): string {
  return equalityValue(filter, /^(urn:ietf:params:scim:schemas:core:2\.0:Group:)?displayName$/i, 'displayName');
}

function equalityValue(filter: string, attribute: RegExp, name: string): string {
  if (filter.length > 1024) throw badRequest('invalidFilter', 'the filter is too long');
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(filter);
  } catch {
    throw badRequest('invalidFilter', 'the filter is not valid SCIM filter syntax');
  }
  if (
    parsed.op === 'eq' &&
    'attrPath' in parsed &&
    attribute.test(parsed.attrPath) &&
    'compValue' in parsed &&
    typeof parsed.compValue === 'string'
  ) {
    return parsed.compValue;
  }
  throw badRequest('invalidFilter', `only the filter ${name} eq "<value>" is supported`);
}
