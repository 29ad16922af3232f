/**
 * The store of organization OIDC connections: one per organization (storage/org-scoped-rows.ts),
 * the upstream client secret sealed by the keys service, deleted with their organization inside
 * its deletion's transaction.
 */
import type { EntityManager } from '@mikro-orm/core';
import { ServiceError } from '../../core/errors.js';
import type { Storage } from '../../core/storage.js';
import { newId } from '../../storage/ids.js';
import { orgScopedRows } from '../../storage/org-scoped-rows.js';
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
const duplicate = () => new ServiceError('already_exists', 'oidc connection already exists for this organization');

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
  const rows = orgScopedRows<OidcConnectionRow>(storage, OidcConnectionEntity, {
    notFound: connectionNotFound,
    duplicate,
  });
  const found = (r: OidcConnectionRow | null) => (r ? toConnection(r) : null);
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
      await rows.insert(r);
      return toConnection(r);
    },
    async update(id, { clientSecret, scopes, ...fields }) {
      const r = await rows.update(id, fields, (r) => {
        if (clientSecret !== undefined) r.clientSecretSealed = keys.seal(clientSecret, SECRET_PURPOSE);
        if (scopes !== undefined) r.scopes = scopes.join(' ');
      });
      return toConnection(r);
    },
    remove: (id) => rows.remove(id),
    get: async (id) => found(await rows.get(id)),
    byOrg: async (orgId) => found(await rows.byOrg(orgId)),
    async secretOf(id) {
      const r = await rows.get(id);
      return r ? keys.open(r.clientSecretSealed, SECRET_PURPOSE) : null;
    },
    removeForOrg: (orgId, em) => rows.removeForOrg(orgId, em),
  };
}
