/**
 * A user's identity at a social provider: the provider's stable subject (`sub`, GitHub's numeric
 * id, ...) bound to a Latchkey user. Returning users are found by it, never by email alone, so an
 * email changed at the provider cannot move the login to another account.
 */
import { defineEntity } from '@mikro-orm/core';

export interface SocialIdentityRow {
  id: string;
  /**
   * SHA-256 (hex) of the provider and subject: one column keeps the pair unique on every database,
   * and as lowercase hex it compares the same under MySQL's and MariaDB's case-insensitive
   * collations, where subjects differing only in case would otherwise be one key.
   */
  providerSubject: string;
  provider: string;
  subject: string;
  userId: string;
  createdAt: number;
}

export const SocialIdentityEntity = defineEntity({
  name: 'LatchkeySocialIdentity',
  tableName: 'latchkey_social_identities',
  properties: (p) => ({
    id: p.string().primary().length(64),
    providerSubject: p.string().length(64).fieldName('provider_subject').unique(),
    provider: p.string().length(64),
    subject: p.string().length(255),
    userId: p.string().length(64).fieldName('user_id').index(),
    createdAt: p.bigint('number').fieldName('created_at'),
  }),
});
