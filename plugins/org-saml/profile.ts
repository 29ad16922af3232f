/**
 * A validated assertion as a social profile: the NameID is the subject, the other fields come from
 * the attributes the connection's mapping names. The email counts as verified only when its domain
 * is one the organization has verified: the organization's IdP speaks for its own domains, not
 * for anyone else's (an unverified email never links to an existing account).
 */
import type { SocialProfile } from '../social/index.js';
import type { AttributeMapping } from './connections.js';
import type { Profile } from './service-provider.js';
import { RefusedSamlResponse } from './xml-guard.js';

function attribute(profile: Profile, name: string, max: number): string | undefined {
  const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
  const raw = attributes[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === 'string' && value.length > 0 && value.length <= max ? value : undefined;
}

export async function profileOf(
  profile: Profile,
  mapping: AttributeMapping,
  domainOfOrganization: (domain: string) => Promise<boolean>,
): Promise<SocialProfile> {
  const subject = profile.nameID;
  if (typeof subject !== 'string' || subject.length === 0 || subject.length > 255)
    throw new RefusedSamlResponse('the assertion has no usable NameID');
  const email = attribute(profile, mapping.email, 320)?.toLowerCase();
  const domain = email?.split('@')[1];
  const out: SocialProfile = { subject, emailVerified: domain ? await domainOfOrganization(domain) : false };
  if (email) out.email = email;
  const given = attribute(profile, mapping.given_name, 256);
  if (given) out.givenName = given;
  const family = attribute(profile, mapping.family_name, 256);
  if (family) out.familyName = family;
  return out;
}
