/**
 * What an assertion says about the user: the NameID in the service provider's format and the
 * user fields its mapping names, each as an attribute of the mapped name.
 */
import { randomBytes } from 'node:crypto';
import { invalidArgument } from '../../core/errors.js';
import type { UserRecord } from '../users/index.js';
import type { MappedAttribute } from './service-providers.js';

/** NameID formats (SAML Core §8.3). */
export const NAME_ID_FORMATS = {
  emailAddress: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  persistent: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  transient: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
  unspecified: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
} as const;

export const DEFAULT_NAME_ID_FORMAT = NAME_ID_FORMATS.emailAddress;

const USER_FIELDS: Record<string, (u: UserRecord) => string | null> = {
  id: (u) => u.id,
  email: (u) => u.email,
  given_name: (u) => u.givenName,
  family_name: (u) => u.familyName,
  middle_name: (u) => u.middleName,
  nickname: (u) => u.nickname,
  preferred_username: (u) => u.preferredUsername,
  phone_number: (u) => u.phoneNumber,
  name: (u) => [u.givenName, u.familyName].filter(Boolean).join(' ') || null,
};

export const DEFAULT_MAPPED_ATTRIBUTES: MappedAttribute[] = [
  { name: 'email', field: 'email' },
  { name: 'given_name', field: 'given_name' },
  { name: 'family_name', field: 'family_name' },
];

export function checkedNameIdFormat(format: string): string {
  if (!(Object.values(NAME_ID_FORMATS) as string[]).includes(format))
    throw invalidArgument(`name_id_format must be one of ${Object.values(NAME_ID_FORMATS).join(', ')}`);
  return format;
}

export function checkedMapping(mapping: MappedAttribute[]): MappedAttribute[] {
  const names = new Set<string>();
  for (const m of mapping) {
    if (!(m.field in USER_FIELDS))
      throw invalidArgument(`mapped_attributes field must be one of ${Object.keys(USER_FIELDS).join(', ')}`);
    if (names.has(m.name)) throw invalidArgument('mapped_attributes names must be unique');
    names.add(m.name);
  }
  return mapping.map((m) => ({ name: m.name, field: m.field }));
}

/**
 * The NameID: the email for emailAddress, the user's id for persistent and unspecified (stable and
 * opaque), a fresh random value for transient (SAML Core §8.3.8). Null when the user has no email
 * and the format wants one.
 */
export function nameIdOf(user: UserRecord, format: string): string | null {
  if (format === NAME_ID_FORMATS.emailAddress) return user.email;
  if (format === NAME_ID_FORMATS.transient) return `_${randomBytes(20).toString('hex')}`;
  return user.id;
}

/** The mapped attributes that have a value for this user. */
export function attributesOf(user: UserRecord, mapping: MappedAttribute[]): { name: string; value: string }[] {
  return mapping.flatMap((m) => {
    const value = USER_FIELDS[m.field]?.(user);
    return value ? [{ name: m.name, value }] : [];
  });
}
