/**
 * The `org-domains` service: pending DNS challenges (memory store), verified domains (rows), and
 * the lookup discovery uses (states: pending, verified, expired). Authorization is the
 * operations' job; this holds the state machine.
 */
import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import { ServiceError, failedPrecondition } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { MemoryStore } from '../../core/memory-store.js';
import type { Storage } from '../../core/storage.js';
import { openUnitOfWork, type UnitOfWork } from '../../core/unit-of-work.js';
import { CHALLENGE_TTL_MS, challengeKey, newChallengeValue, recordNameOf } from './challenge.js';
import type { TxtLookup } from './dns-lookup.js';
import { OrgDomainEntity, type OrgDomainRow } from './entities.js';
import { claimableDomain, normalizeDomain } from './normalize.js';

export type VerificationMethod = 'dns_txt' | 'trusted_assert';

export interface OrgDomainRecord {
  domain: string;
  orgId: string;
  method: VerificationMethod;
  /** Unix milliseconds. */
  verifiedAt: number;
  createdAt: number;
}

export interface DomainChallenge {
  domain: string;
  recordType: 'TXT';
  recordName: string;
  recordValue: string;
}

export interface OrgDomainsService {
  /** The shared normalization (IDNA/UTS-46, lowercase punycode), or null for what is not a domain. */
  normalize(domain: string): string | null;
  /** The verified domain's record; `domain` must be normalized. */
  get(domain: string): Promise<OrgDomainRecord | null>;
  /** Starts (or repeats) the challenge of an organization for a domain. */
  request(orgId: string, domain: string): Promise<DomainChallenge>;
  /**
   * Checks the TXT record; `newly` is false when the organization had verified it already.
   * `within` runs in the unit of work that stores a newly verified domain (its event is stored
   * by the same commit).
   */
  verify(
    orgId: string,
    domain: string,
    options?: DomainWriteOptions,
  ): Promise<{ record: OrgDomainRecord; newly: boolean }>;
  /** Records the domain as verified without DNS (super-admin's trusted assertion); `within` as for verify. */
  assert(
    orgId: string,
    domain: string,
    options?: DomainWriteOptions,
  ): Promise<{ record: OrgDomainRecord; newly: boolean }>;
  /** Removes a verified domain; false when it was not there (`within` then stores nothing). */
  remove(domain: string, options?: DomainWriteOptions): Promise<boolean>;
  list(orgId: string, page: number, limit: number): Promise<{ domains: OrgDomainRecord[]; total: number }>;
}

export interface DomainWriteOptions {
  /** Runs inside the unit of work of the change, before its commit (core/unit-of-work.ts). */
  within?: (unit: UnitOfWork, record: OrgDomainRecord) => Promise<void>;
}

declare module '../../core/services.js' {
  interface Services {
    'org-domains': OrgDomainsService;
  }
}

export const DNS_VERIFICATION_FAILED = 'dns verification failed';
export const TAKEN_BY_ANOTHER_ORG = 'domain_already_verified_by_another_org';

const takenByAnother = (): ServiceError => new ServiceError('already_exists', TAKEN_BY_ANOTHER_ORG);

function toRecord(r: OrgDomainRow): OrgDomainRecord {
  return {
    domain: r.domain,
    orgId: r.orgId,
    method: r.method === 'trusted_assert' ? 'trusted_assert' : 'dns_txt',
    verifiedAt: Number(r.verifiedAt),
    createdAt: Number(r.createdAt),
  };
}

export function createOrgDomainsService(
  storage: Storage,
  memory: MemoryStore,
  lookup: TxtLookup,
  logger: Logger,
): OrgDomainsService {
  const unitOf = (em: EntityManager) => openUnitOfWork(em, (err) => logger.error({ err }, 'after-commit step failed'));

  async function get(domain: string): Promise<OrgDomainRecord | null> {
    const found = (await storage.em().findOne(OrgDomainEntity, { domain })) as OrgDomainRow | null;
    return found ? toRecord(found) : null;
  }

  /** Inserts the verified row; the primary key decides between two organizations racing for it. */
  async function insert(
    orgId: string,
    domain: string,
    method: VerificationMethod,
    options: DomainWriteOptions,
  ): Promise<{ record: OrgDomainRecord; newly: boolean }> {
    const now = Date.now();
    const row: OrgDomainRow = { domain, orgId, method, verifiedAt: now, createdAt: now };
    const em = storage.em();
    em.create(OrgDomainEntity, row as never);
    const unit = unitOf(em);
    await options.within?.(unit, toRecord(row));
    try {
      await unit.commit();
      return { record: toRecord(row), newly: true };
    } catch (err) {
      if (!(err instanceof UniqueConstraintViolationException)) throw err;
      const winner = await get(domain);
      if (!winner) throw err;
      if (winner.orgId !== orgId) throw takenByAnother();
      return { record: winner, newly: false };
    }
  }

  /** An already verified domain: a no-op for its owner, refused for anyone else. */
  async function existing(orgId: string, domain: string): Promise<OrgDomainRecord | null> {
    const found = await get(domain);
    if (found && found.orgId !== orgId) throw takenByAnother();
    return found;
  }

  return {
    normalize: normalizeDomain,
    get: async (domain) => get(domain),

    async request(orgId, input) {
      const domain = claimableDomain(input);
      if (await existing(orgId, domain)) throw failedPrecondition('domain is already verified by this organization');
      const key = challengeKey(orgId, domain);
      // Asking again answers the same pending value: a record already published stays valid.
      await memory.setIfAbsent(key, newChallengeValue(), CHALLENGE_TTL_MS);
      const value = (await memory.get(key)) ?? newChallengeValue();
      return { domain, recordType: 'TXT', recordName: recordNameOf(domain), recordValue: value };
    },

    async verify(orgId, input, options = {}) {
      const domain = claimableDomain(input);
      const already = await existing(orgId, domain);
      if (already) return { record: already, newly: false };
      const key = challengeKey(orgId, domain);
      const expected = await memory.get(key);
      if (!expected) throw failedPrecondition('no pending challenge for this domain; request one first');
      const answer = await lookup(recordNameOf(domain));
      // Exact string comparison, no prefix or substring match; on failure the challenge stays for a retry.
      if (answer.kind !== 'records' || !answer.values.includes(expected))
        throw failedPrecondition(DNS_VERIFICATION_FAILED);
      const result = await insert(orgId, domain, 'dns_txt', options);
      await memory.delete(key);
      return result;
    },

    async assert(orgId, input, options = {}) {
      const domain = claimableDomain(input);
      const already = await existing(orgId, domain);
      if (already) return { record: already, newly: false };
      const result = await insert(orgId, domain, 'trusted_assert', options);
      await memory.delete(challengeKey(orgId, domain));
      return result;
    },

    async remove(domain, options = {}) {
      const record = await get(domain);
      if (!record) return false;
      const unit = unitOf(storage.em());
      await options.within?.(unit, record);
      const missing = new Error('domain not found');
      return unit
        .commit(async (tx) => {
          if ((await tx.nativeDelete(OrgDomainEntity, { domain })) === 0) throw missing;
        })
        .then(
          () => true,
          (err: unknown) => {
            if (err === missing) return false;
            throw err;
          },
        );
    },

    async list(orgId, page, limit) {
      const [rows, total] = await storage
        .em()
        .findAndCount(OrgDomainEntity, { orgId }, { orderBy: { domain: 'asc' }, limit, offset: (page - 1) * limit });
      return { domains: (rows as OrgDomainRow[]).map(toRecord), total };
    },
  };
}
