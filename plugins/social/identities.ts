/** The provider-subject links of users (entities.ts), removed with their user. */
import { createHash } from 'node:crypto';
import type { Storage } from '../../core/storage.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { newId } from '../../storage/ids.js';
import { SocialIdentityEntity, type SocialIdentityRow } from './entities.js';

export interface SocialIdentities {
  /** The user id linked to the provider's subject, or null. */
  userOf(provider: string, subject: string): Promise<string | null>;
  /** Links the subject to the user; false when the subject is already linked (to anyone). */
  link(provider: string, subject: string, userId: string): Promise<boolean>;
  /**
   * Links the subject to a user the unit of work creates, stored by its commit; a concurrent link
   * of the same subject fails that commit with a unique-key violation.
   */
  linkWithin(unit: UnitOfWork, provider: string, subject: string, userId: string): void;
  unlink(provider: string, subject: string): Promise<void>;
  removeUser(userId: string): Promise<void>;
}

const keyOf = (provider: string, subject: string): string =>
  createHash('sha256').update(`${provider}\n${subject}`).digest('hex');

const newRow = (provider: string, subject: string, userId: string): SocialIdentityRow => ({
  id: newId(),
  providerSubject: keyOf(provider, subject),
  provider,
  subject,
  userId,
  createdAt: Date.now(),
});

export function socialIdentities(storage: Storage): SocialIdentities {
  return {
    async userOf(provider, subject) {
      const row = (await storage
        .em()
        .findOne(SocialIdentityEntity, { providerSubject: keyOf(provider, subject) })) as SocialIdentityRow | null;
      return row?.userId ?? null;
    },
    async link(provider, subject, userId) {
      const em = storage.em();
      em.create(SocialIdentityEntity, newRow(provider, subject, userId));
      try {
        await em.flush();
        return true;
      } catch (err) {
        // A concurrent first login of the same subject won the unique key.
        if ((await this.userOf(provider, subject)) !== null) return false;
        throw err;
      }
    },
    linkWithin(unit, provider, subject, userId) {
      unit.em.create(SocialIdentityEntity, newRow(provider, subject, userId));
    },
    async unlink(provider, subject) {
      await storage.em().nativeDelete(SocialIdentityEntity, { providerSubject: keyOf(provider, subject) } as never);
    },
    async removeUser(userId) {
      await storage.em().nativeDelete(SocialIdentityEntity, { userId } as never);
    },
  };
}
