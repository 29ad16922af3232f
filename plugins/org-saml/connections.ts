/**
 * The store of organization SAML connections: one per organization (storage/org-scoped-rows.ts),
 * deleted with their organization inside its deletion's transaction.
 */
import type { EntityManager } from '@mikro-orm/core';
import { ServiceError } from '../../core/errors.js';
import type { Storage } from '../../core/storage.js';
import { newId } from '../../storage/ids.js';
import { orgScopedRows } from '../../storage/org-scoped-rows.js';
import { SamlConnectionEntity, type SamlConnectionRow } from './entities.js';

/** Which assertion attribute carries each profile field; the subject is always the NameID. */
export interface AttributeMapping {
  email: string;
  given_name: string;
  family_name: string;
}

export const DEFAULT_ATTRIBUTE_MAPPING: AttributeMapping = {
  email: 'email',
  given_name: 'given_name',
  family_name: 'family_name',
};

export interface SamlConnection {
  id: string;
  orgId: string;
  name: string;
  idpEntityId: string;
  idpSsoUrl: string;
  idpCertificate: string;
  spEntityId: string | null;
  acsUrl: string | null;
  attributeMapping: AttributeMapping;
  allowIdpInitiated: boolean;
  isActive: boolean;
}

export type SamlConnectionInput = Omit<SamlConnection, 'id' | 'orgId' | 'isActive'>;

export const connectionNotFound = () => new ServiceError('not_found', 'saml connection not found');
const duplicate = () => new ServiceError('already_exists', 'saml connection already exists for this organization');

const toConnection = (r: SamlConnectionRow): SamlConnection => ({
  id: r.id,
  orgId: r.orgId,
  name: r.name,
  idpEntityId: r.idpEntityId,
  idpSsoUrl: r.idpSsoUrl,
  idpCertificate: r.idpCertificate,
  spEntityId: r.spEntityId,
  acsUrl: r.acsUrl,
  attributeMapping: { ...DEFAULT_ATTRIBUTE_MAPPING, ...(JSON.parse(r.attributeMapping) as Partial<AttributeMapping>) },
  allowIdpInitiated: Boolean(r.allowIdpInitiated),
  isActive: Boolean(r.isActive),
});

export interface SamlConnections {
  create(orgId: string, input: SamlConnectionInput): Promise<SamlConnection>;
  update(id: string, patch: Partial<SamlConnectionInput> & { isActive?: boolean }): Promise<SamlConnection>;
  remove(id: string): Promise<void>;
  get(id: string): Promise<SamlConnection | null>;
  byOrg(orgId: string): Promise<SamlConnection | null>;
  removeForOrg(orgId: string, em: EntityManager): Promise<void>;
}

export function createSamlConnections(storage: Storage): SamlConnections {
  const rows = orgScopedRows<SamlConnectionRow>(storage, SamlConnectionEntity, {
    notFound: connectionNotFound,
    duplicate,
  });
  const found = (r: SamlConnectionRow | null) => (r ? toConnection(r) : null);
  return {
    async create(orgId, input) {
      const now = Date.now();
      const r: SamlConnectionRow = {
        id: newId(),
        orgId,
        name: input.name,
        idpEntityId: input.idpEntityId,
        idpSsoUrl: input.idpSsoUrl,
        idpCertificate: input.idpCertificate,
        spEntityId: input.spEntityId,
        acsUrl: input.acsUrl,
        attributeMapping: JSON.stringify(input.attributeMapping),
        allowIdpInitiated: input.allowIdpInitiated,
        isActive: true,
        createdAt: now,
        updatedAt: now,
      };
      await rows.insert(r);
      return toConnection(r);
    },
    async update(id, { attributeMapping, ...fields }) {
      const r = await rows.update(id, fields, (r) => {
        if (attributeMapping !== undefined) r.attributeMapping = JSON.stringify(attributeMapping);
      });
      return toConnection(r);
    },
    remove: (id) => rows.remove(id),
    get: async (id) => found(await rows.get(id)),
    byOrg: async (orgId) => found(await rows.byOrg(orgId)),
    removeForOrg: (orgId, em) => rows.removeForOrg(orgId, em),
  };
}
