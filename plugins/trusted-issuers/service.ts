/**
 * The trusted-issuer store: admin CRUD over the issuers of each client (the admin group
 * "Trusted issuers") and the lookup the assertion check needs.
 */
import type { Config } from '../../core/config.js';
import { invalidArgument, notFound } from '../../core/errors.js';
import type { Storage } from '../../core/storage.js';
import { newId } from '../../storage/ids.js';
import { TrustedIssuerEntity, type TrustedIssuerRow } from './entities.js';
import {
  ISSUER_TYPES,
  KEY_SOURCE_TYPES,
  checkAudience,
  checkClaimName,
  checkOneOf,
  checkSubjects,
  checkText,
  checkUrl,
} from './validation.js';
import { audiencesOf } from './audience.js';

export interface TrustedIssuerRecord {
  id: string;
  serviceAccountId: string;
  name: string;
  issuerUrl: string;
  keySourceType: (typeof KEY_SOURCE_TYPES)[number];
  jwksUrl: string | null;
  expectedAud: string;
  subjectClaim: string;
  allowedSubjects: string[];
  issuerType: (typeof ISSUER_TYPES)[number];
  isActive: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface AddTrustedIssuerInput {
  service_account_id: string;
  name: string;
  issuer_url: string;
  key_source_type: string;
  jwks_url?: string;
  expected_aud: string;
  subject_claim?: string;
  allowed_subjects?: string[];
  issuer_type: string;
}

export interface UpdateTrustedIssuerInput {
  id: string;
  name?: string;
  jwks_url?: string;
  expected_aud?: string;
  is_active?: boolean;
  issuer_type?: string;
}

export interface TrustedIssuerStore {
  add(input: AddTrustedIssuerInput): Promise<TrustedIssuerRecord>;
  update(input: UpdateTrustedIssuerInput): Promise<TrustedIssuerRecord>;
  remove(id: string): Promise<void>;
  get(id: string): Promise<TrustedIssuerRecord>;
  list(
    page: number,
    limit: number,
    serviceAccountId?: string,
  ): Promise<{ issuers: TrustedIssuerRecord[]; total: number }>;
  /** The issuers of one client (active or not). */
  ofClient(serviceAccountId: string): Promise<TrustedIssuerRecord[]>;
  /** The active issuers with this `issuer_url`, whatever their client. */
  activeByIssuer(issuerUrl: string): Promise<TrustedIssuerRecord[]>;
  /** Deletes every issuer of a client (the cascade of `delete_client`). */
  removeOfClient(serviceAccountId: string): Promise<number>;
}

const toRecord = (r: TrustedIssuerRow): TrustedIssuerRecord => ({
  id: r.id,
  serviceAccountId: r.serviceAccountId,
  name: r.name,
  issuerUrl: r.issuerUrl,
  keySourceType: r.keySourceType as TrustedIssuerRecord['keySourceType'],
  jwksUrl: r.jwksUrl ?? null,
  expectedAud: r.expectedAud,
  subjectClaim: r.subjectClaim,
  allowedSubjects: [...(r.allowedSubjects ?? [])],
  issuerType: r.issuerType as TrustedIssuerRecord['issuerType'],
  isActive: r.isActive,
  createdAt: Number(r.createdAt),
  updatedAt: Number(r.updatedAt),
});

export function createTrustedIssuerStore(
  storage: Storage,
  config: Config,
  /** Throws unless the client may own trusted issuers. */
  checkOwner: (id: string) => Promise<void>,
): TrustedIssuerStore {
  const audiences = audiencesOf(config);

  return {
    async add(input) {
      // Every field is checked before the insert: a refused request writes nothing.
      const keySourceType = checkOneOf(input.key_source_type, KEY_SOURCE_TYPES, 'key_source_type');
      // With a static JWKS URL the issuer is any identifier (RFC 7523 §3: often the client id
      // itself); discovery needs a URL to find its document under (RFC 8414 §3).
      const issuerUrl =
        keySourceType === 'oidc_discovery'
          ? checkUrl(input.issuer_url, 'issuer_url')
          : checkText(input.issuer_url, 'issuer_url');
      const jwksUrl = input.jwks_url !== undefined ? checkUrl(input.jwks_url, 'jwks_url') : null;
      if (keySourceType === 'static_jwks_url' && jwksUrl === null)
        throw invalidArgument('jwks_url is required with static_jwks_url');
      const row: TrustedIssuerRow = {
        id: newId(),
        serviceAccountId: input.service_account_id,
        name: checkText(input.name, 'name'),
        issuerUrl,
        keySourceType,
        jwksUrl,
        expectedAud: checkAudience(input.expected_aud, audiences),
        subjectClaim: checkClaimName(input.subject_claim ?? 'sub'),
        allowedSubjects: checkSubjects(input.allowed_subjects),
        issuerType: checkOneOf(input.issuer_type, ISSUER_TYPES, 'issuer_type'),
        isActive: true,
        createdAt: Date.now(),
        updatedAt: Date.now(),
      };
      await checkOwner(input.service_account_id);
      const em = storage.em();
      em.create(TrustedIssuerEntity, row);
      await em.flush();
      return toRecord(row);
    },

    async update(input) {
      const name = input.name !== undefined ? checkText(input.name, 'name') : undefined;
      const jwksUrl = input.jwks_url !== undefined ? checkUrl(input.jwks_url, 'jwks_url') : undefined;
      const aud = input.expected_aud !== undefined ? checkAudience(input.expected_aud, audiences) : undefined;
      const issuerType =
        input.issuer_type !== undefined ? checkOneOf(input.issuer_type, ISSUER_TYPES, 'issuer_type') : undefined;
      const em = storage.em();
      const found = (await em.findOne(TrustedIssuerEntity, { id: input.id })) as TrustedIssuerRow | null;
      if (!found) throw notFound('trusted issuer not found');
      if (name !== undefined) found.name = name;
      if (jwksUrl !== undefined) found.jwksUrl = jwksUrl;
      if (aud !== undefined) found.expectedAud = aud;
      if (issuerType !== undefined) found.issuerType = issuerType;
      if (input.is_active !== undefined) found.isActive = input.is_active;
      found.updatedAt = Date.now();
      await em.flush();
      return toRecord(found);
    },

    async remove(id) {
      const deleted = await storage.em().nativeDelete(TrustedIssuerEntity, { id });
      if (deleted === 0) throw notFound('trusted issuer not found');
    },

    async get(id) {
      const found = (await storage.em().findOne(TrustedIssuerEntity, { id })) as TrustedIssuerRow | null;
      if (!found) throw notFound('trusted issuer not found');
      return toRecord(found);
    },

    async list(page, limit, serviceAccountId) {
      const where = serviceAccountId !== undefined ? { serviceAccountId } : {};
      const [rows, total] = await storage.em().findAndCount(TrustedIssuerEntity, where, {
        orderBy: { createdAt: 'asc', id: 'asc' },
        limit,
        offset: (page - 1) * limit,
      });
      return { issuers: (rows as TrustedIssuerRow[]).map(toRecord), total };
    },

    async ofClient(serviceAccountId) {
      const rows = await storage.em().find(TrustedIssuerEntity, { serviceAccountId });
      return (rows as TrustedIssuerRow[]).map(toRecord);
    },

    async activeByIssuer(issuerUrl) {
      const rows = await storage.em().find(TrustedIssuerEntity, { issuerUrl, isActive: true }, { limit: 100 });
      return (rows as TrustedIssuerRow[]).map(toRecord);
    },

    removeOfClient: (serviceAccountId) => storage.em().nativeDelete(TrustedIssuerEntity, { serviceAccountId }),
  };
}
