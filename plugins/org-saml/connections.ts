/**
 * The store of organization SAML connections: one per organization, deleted with their
 * organization inside its deletion's transaction.
 */
import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import { ServiceError } from '../../core/errors.js';
import type { Storage } from '../../core/storage.js';
import { newId } from '../../storage/ids.js';
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
  const row = async (where: Partial<SamlConnectionRow>) =>
    (await storage.em().findOne(SamlConnectionEntity, where)) as SamlConnectionRow | null;
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
      if (await row({ orgId })) throw duplicate();
      try {
        await storage.em().insert(SamlConnectionEntity, r as never);
      } catch (err) {
        if (err instanceof UniqueConstraintViolationException) throw duplicate();
        throw err;
      }
      return toConnection(r);
    },
    async update(id, patch) {
      const em = storage.em();
      const r = (await em.findOne(SamlConnectionEntity, { id })) as SamlConnectionRow | null;
      if (!r) throw connectionNotFound();
      if (patch.name !== undefined) r.name = patch.name;
      if (patch.idpEntityId !== undefined) r.idpEntityId = patch.idpEntityId;
      if (patch.idpSsoUrl !== undefined) r.idpSsoUrl = patch.idpSsoUrl;
      if (patch.idpCertificate !== undefined) r.idpCertificate = patch.idpCertificate;
      if (patch.spEntityId !== undefined) r.spEntityId = patch.spEntityId;
      if (patch.acsUrl !== undefined) r.acsUrl = patch.acsUrl;
      if (patch.attributeMapping !== undefined) r.attributeMapping = JSON.stringify(patch.attributeMapping);
      if (patch.allowIdpInitiated !== undefined) r.allowIdpInitiated = patch.allowIdpInitiated;
      if (patch.isActive !== undefined) r.isActive = patch.isActive;
      r.updatedAt = Date.now();
      await em.flush();
      return toConnection(r);
    },
    async remove(id) {
      if ((await storage.em().nativeDelete(SamlConnectionEntity, { id })) === 0) throw connectionNotFound();
    },
    get: async (id) => {
      const r = await row({ id });
      return r ? toConnection(r) : null;
    },
    byOrg: async (orgId) => {
      const r = await row({ orgId });
      return r ? toConnection(r) : null;
    },
    async removeForOrg(orgId, em) {
      await em.nativeDelete(SamlConnectionEntity, { orgId });
    },
  };
}
