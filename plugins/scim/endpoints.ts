/**
 * SCIM endpoints per organization: create (token shown once), rotate
 * (the old token ends at once), delete, read; and recognising the organization from a token.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { ServiceError, notFound } from '../../core/errors.js';
import type { Storage } from '../../core/storage.js';
import { newId } from '../../storage/ids.js';
import { ScimEndpointEntity, type ScimEndpointRow } from './entities.js';
import { DUMMY_DIGEST, newScimToken, secretMatches, splitToken } from './token.js';

export interface ScimEndpoint {
  id: string;
  orgId: string;
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface ScimEndpoints {
  create(orgId: string): Promise<{ endpoint: ScimEndpoint; token: string }>;
  rotate(orgId: string): Promise<{ endpoint: ScimEndpoint; token: string }>;
  remove(orgId: string): Promise<void>;
  get(orgId: string): Promise<ScimEndpoint>;
  /** The enabled endpoint a bearer token belongs to, or null (missing, malformed or wrong token). */
  authenticate(token: string | undefined): Promise<ScimEndpoint | null>;
}

const endpointNotFound = () => notFound('scim endpoint not found');
const toEndpoint = (r: ScimEndpointRow): ScimEndpoint => ({
  id: r.id,
  orgId: r.orgId,
  enabled: Boolean(r.enabled),
  createdAt: Number(r.createdAt),
  updatedAt: Number(r.updatedAt),
});

export function createScimEndpoints(storage: Storage): ScimEndpoints {
  const byOrg = async (orgId: string) =>
    (await storage.em().findOne(ScimEndpointEntity, { orgId })) as ScimEndpointRow | null;

  return {
    async create(orgId) {
      const id = newId();
      const { token, digest } = newScimToken(id);
      const now = Date.now();
      const row: ScimEndpointRow = { id, orgId, enabled: true, tokenDigest: digest, createdAt: now, updatedAt: now };
      if (await byOrg(orgId))
        throw new ServiceError('already_exists', 'scim endpoint already exists for this organization');
      try {
        await storage.em().insert(ScimEndpointEntity, row as never);
      } catch (err) {
        if (err instanceof UniqueConstraintViolationException)
          throw new ServiceError('already_exists', 'scim endpoint already exists for this organization');
        throw err;
      }
      return { endpoint: toEndpoint(row), token };
    },

    async rotate(orgId) {
      const em = storage.em();
      const row = (await em.findOne(ScimEndpointEntity, { orgId })) as ScimEndpointRow | null;
      if (!row) throw endpointNotFound();
      const { token, digest } = newScimToken(row.id);
      row.tokenDigest = digest;
      row.updatedAt = Date.now();
      await em.flush();
      return { endpoint: toEndpoint(row), token };
    },

    async remove(orgId) {
      if ((await storage.em().nativeDelete(ScimEndpointEntity, { orgId })) === 0) throw endpointNotFound();
    },

    async get(orgId) {
      const row = await byOrg(orgId);
      if (!row) throw endpointNotFound();
      return toEndpoint(row);
    },

    async authenticate(token) {
      const parts = token ? splitToken(token) : null;
      const row = parts
        ? ((await storage.em().findOne(ScimEndpointEntity, { id: parts.endpointId })) as ScimEndpointRow | null)
        : null;
      // The comparison runs whether or not the endpoint was found, against a digest of the same length.
      const ok = secretMatches(row?.tokenDigest ?? DUMMY_DIGEST, parts?.secret ?? '\0');
      return row && ok && row.enabled ? toEndpoint(row) : null;
    },
  };
}
