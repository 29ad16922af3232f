/**
 * A user's identity at a social provider: the provider's stable subject (`sub`, GitHub's numeric
 * id, ...) bound to a Latchkey user. Returning users are found by it, never by email alone, so an
 * email changed at the provider cannot move the login to another account.
 */
import { defineEntity } from '@mikro-orm/core';

export interface SocialIdentityRow {
  id: string;
  /** `<provider>:<subject>`: one column keeps the pair unique on every database. */
  providerSubject: string;
  provider: string;
  userId: string;
  createdAt: number;
}

export const SocialIdentityEntity = defineEntity({
  name: 'LatchkeySocialIdentity',
  tableName: 'latchkey_social_identities',
  properties: (p) => ({
    id: p.string().primary().length(64),
    providerSubject: p.string().length(512).fieldName('provider_subject').unique(),
    provider: p.string().length(64),
    userId: p.string().length(64).fieldName('user_id').index(),
    createdAt: p.bigint('number').fieldName('created_at'),
  }),
});
