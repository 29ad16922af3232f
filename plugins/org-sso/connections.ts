/**
 * The store of organization OIDC connections: one per organization, the upstream client secret
 * sealed by the keys service, deleted with their organization inside its deletion's transaction.
 */
import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import { ServiceError } from '../../core/errors.js';
import type { Storage } from '../../core/storage.js';
import { newId } from '../../storage/ids.js';
import type { KeysService } from '../keys/index.js';
import { OidcConnectionEntity, type OidcConnectionRow } from './entities.js';

export const DEFAULT_SCOPES = ['openid', 'email', 'profile'];
const SECRET_PURPOSE = 'org-oidc-client-secret';

export interface OidcConnection {
  id: string;
  orgId: string;
  name: string;
  issuerUrl: string;
  clientId: string;
  scopes: string[];
  redirectUri: string | null;
  isActive: boolean;
}

export interface OidcConnectionInput {
  name: string;
  issuerUrl: string;
  clientId: string;
  clientSecret: string;
  scopes: string[];
  redirectUri: string | null;
}

export const connectionNotFound = () => new ServiceError('not_found', 'oidc connection not found');

const toConnection = (r: OidcConnectionRow): OidcConnection => ({
  id: r.id,
  orgId: r.orgId,
  name: r.name,
  issuerUrl: r.issuerUrl,
  clientId: r.clientId,
  scopes: r.scopes.split(' ').filter(Boolean),
  redirectUri: r.redirectUri,
  isActive: Boolean(r.isActive),
});

export interface OidcConnections {
  create(orgId: string, input: OidcConnectionInput): Promise<OidcConnection>;
  update(id: string, patch: Partial<OidcConnectionInput> & { isActive?: boolean }): Promise<OidcConnection>;
  remove(id: string): Promise<void>;
  get(id: string): Promise<OidcConnection | null>;
  byOrg(orgId: string): Promise<OidcConnection | null>;
  /** The upstream client secret, opened; null when it cannot be (a changed --encryption-key). */
  secretOf(id: string): Promise<string | null>;
  removeForOrg(orgId: string, em: EntityManager): Promise<void>;
}

export function createOidcConnections(storage: Storage, keys: KeysService): OidcConnections {
  const row = async (where: Partial<OidcConnectionRow>) =>
    (await storage.em().findOne(OidcConnectionEntity, where)) as OidcConnectionRow | null;
  return {
    async create(orgId, input) {
      const now = Date.now();
      const r: OidcConnectionRow = {
        id: newId(),
        orgId,
        name: input.name,
        issuerUrl: input.issuerUrl,
        clientId: input.clientId,
        clientSecretSealed: keys.seal(input.clientSecret, SECRET_PURPOSE),
        scopes: input.scopes.join(' '),
        redirectUri: input.redirectUri,
        isActive: true,
        createdAt: now,
        updatedAt: now,
      };
      if (await row({ orgId }))
        throw new ServiceError('already_exists', 'oidc connection already exists for this organization');
      try {
        await storage.em().insert(OidcConnectionEntity, r as never);
      } catch (err) {
        if (err instanceof UniqueConstraintViolationException)
          throw new ServiceError('already_exists', 'oidc connection already exists for this organization');
        throw err;
      }
      return toConnection(r);
    },
    async update(id, patch) {
      const em = storage.em();
      const r = (await em.findOne(OidcConnectionEntity, { id })) as OidcConnectionRow | null;
      if (!r) throw connectionNotFound();
      if (patch.name !== undefined) r.name = patch.name;
      if (patch.issuerUrl !== undefined) r.issuerUrl = patch.issuerUrl;
      if (patch.clientId !== undefined) r.clientId = patch.clientId;
      if (patch.clientSecret !== undefined) r.clientSecretSealed = keys.seal(patch.clientSecret, SECRET_PURPOSE);
      if (patch.scopes !== undefined) r.scopes = patch.scopes.join(' ');
      if (patch.redirectUri !== undefined) r.redirectUri = patch.redirectUri;
      if (patch.isActive !== undefined) r.isActive = patch.isActive;
      r.updatedAt = Date.now();
      await em.flush();
      return toConnection(r);
    },
    async remove(id) {
      if ((await storage.em().nativeDelete(OidcConnectionEntity, { id })) === 0) throw connectionNotFound();
    },
    get: async (id) => {
      const r = await row({ id });
      return r ? toConnection(r) : null;
    },
    byOrg: async (orgId) => {
      const r = await row({ orgId });
      return r ? toConnection(r) : null;
    },
    async secretOf(id) {
      const r = await row({ id });
      return r ? keys.open(r.clientSecretSealed, SECRET_PURPOSE) : null;
    },
    async removeForOrg(orgId, em) {
      await em.nativeDelete(OidcConnectionEntity, { orgId });
    },
  };
}
