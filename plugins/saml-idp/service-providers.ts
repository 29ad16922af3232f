/**
 * The store of an organization's SAML service providers: an entity id appears once per
 * organization (a unique index on its digest), and the providers go with their organization in
 * its deletion's transaction.
 */
import { createHash } from 'node:crypto';
import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import { ServiceError } from '../../core/errors.js';
import type { Storage } from '../../core/storage.js';
import { newId } from '../../storage/ids.js';
import { ServiceProviderEntity, type ServiceProviderRow } from './entities.js';

/** A user field sent as an attribute of the given name. */
export interface MappedAttribute {
  name: string;
  field: string;
}

/** The SAML binding a LogoutResponse goes back on (SAML Bindings §3.4, §3.5). */
export type SloBinding = 'redirect' | 'post';

/** A service provider's SingleLogoutService (SAML Metadata §2.2.2). */
export interface SingleLogout {
  url: string;
  binding: SloBinding;
}

export interface ServiceProvider {
  id: string;
  orgId: string;
  name: string;
  entityId: string;
  acsUrl: string;
  spCertPem: string | null;
  /** Null: the provider takes part in no single logout. */
  singleLogout: SingleLogout | null;
  nameIdFormat: string;
  mappedAttributes: MappedAttribute[];
  allowIdpInitiated: boolean;
  isActive: boolean;
}

export type ServiceProviderInput = Omit<ServiceProvider, 'id' | 'orgId' | 'isActive' | 'singleLogout'> & {
  singleLogout?: SingleLogout | null;
};
export type ServiceProviderPatch = Partial<ServiceProviderInput> & { isActive?: boolean };

export const providerNotFound = () => new ServiceError('not_found', 'saml service provider not found');
const duplicate = () =>
  new ServiceError('already_exists', 'saml service provider with given entity_id already exists in this organization');

const keyOf = (entityId: string) => createHash('sha256').update(entityId).digest('hex');
/** Ids are at most 64 characters (the column); anything longer names nothing. */
const fits = (id: string) => id.length > 0 && id.length <= 64;

const toProvider = (r: ServiceProviderRow): ServiceProvider => ({
  id: r.id,
  orgId: r.orgId,
  name: r.name,
  entityId: r.entityId,
  acsUrl: r.acsUrl,
  spCertPem: r.spCertPem ?? null,
  singleLogout: r.sloUrl ? { url: r.sloUrl, binding: r.sloBinding === 'post' ? 'post' : 'redirect' } : null,
  nameIdFormat: r.nameIdFormat,
  mappedAttributes: JSON.parse(r.mappedAttributes) as MappedAttribute[],
  allowIdpInitiated: Boolean(r.allowIdpInitiated),
  isActive: Boolean(r.isActive),
});

export interface ServiceProviders {
  create(orgId: string, input: ServiceProviderInput): Promise<ServiceProvider>;
  update(id: string, patch: ServiceProviderPatch): Promise<ServiceProvider>;
  remove(id: string): Promise<void>;
  get(id: string): Promise<ServiceProvider | null>;
  byEntityId(orgId: string, entityId: string): Promise<ServiceProvider | null>;
  list(orgId: string, page: number, limit: number): Promise<{ providers: ServiceProvider[]; total: number }>;
  removeForOrg(orgId: string, em: EntityManager): Promise<void>;
}

export function createServiceProviders(storage: Storage): ServiceProviders {
  const row = async (where: Partial<ServiceProviderRow>, em: EntityManager = storage.em()) =>
    (await em.findOne(ServiceProviderEntity, where)) as ServiceProviderRow | null;
  const insertOrConflict = async (write: () => Promise<unknown>) => {
    try {
      await write();
    } catch (err) {
      if (err instanceof UniqueConstraintViolationException) throw duplicate();
      throw err;
    }
  };
  return {
    async create(orgId, input) {
      const now = Date.now();
      const r: ServiceProviderRow = {
        id: newId(),
        orgId,
        name: input.name,
        entityId: input.entityId,
        entityKey: keyOf(input.entityId),
        acsUrl: input.acsUrl,
        spCertPem: input.spCertPem,
        sloUrl: input.singleLogout?.url ?? null,
        sloBinding: input.singleLogout?.binding ?? null,
        nameIdFormat: input.nameIdFormat,
        mappedAttributes: JSON.stringify(input.mappedAttributes),
        allowIdpInitiated: input.allowIdpInitiated,
        isActive: true,
        createdAt: now,
        updatedAt: now,
      };
      if (await row({ orgId, entityKey: r.entityKey })) throw duplicate();
      await insertOrConflict(() => storage.em().insert(ServiceProviderEntity, r as never));
      return toProvider(r);
    },
    async update(id, patch) {
      const em = storage.em();
      const r = fits(id) ? await row({ id }, em) : null;
      if (!r) throw providerNotFound();
      if (patch.entityId !== undefined && patch.entityId !== r.entityId) {
        const key = keyOf(patch.entityId);
        if (await row({ orgId: r.orgId, entityKey: key }, em)) throw duplicate();
        r.entityId = patch.entityId;
        r.entityKey = key;
      }
      if (patch.name !== undefined) r.name = patch.name;
      if (patch.acsUrl !== undefined) r.acsUrl = patch.acsUrl;
      if (patch.spCertPem !== undefined) r.spCertPem = patch.spCertPem;
      if (patch.singleLogout !== undefined) {
        r.sloUrl = patch.singleLogout?.url ?? null;
        r.sloBinding = patch.singleLogout?.binding ?? null;
      }
      if (patch.nameIdFormat !== undefined) r.nameIdFormat = patch.nameIdFormat;
      if (patch.mappedAttributes !== undefined) r.mappedAttributes = JSON.stringify(patch.mappedAttributes);
      if (patch.allowIdpInitiated !== undefined) r.allowIdpInitiated = patch.allowIdpInitiated;
      if (patch.isActive !== undefined) r.isActive = patch.isActive;
      r.updatedAt = Date.now();
      await insertOrConflict(() => em.flush());
      return toProvider(r);
    },
    async remove(id) {
      if (!fits(id) || (await storage.em().nativeDelete(ServiceProviderEntity, { id })) === 0) throw providerNotFound();
    },
    async get(id) {
      const r = fits(id) ? await row({ id }) : null;
      return r ? toProvider(r) : null;
    },
    async byEntityId(orgId, entityId) {
      const r = fits(orgId) ? await row({ orgId, entityKey: keyOf(entityId) }) : null;
      return r && r.entityId === entityId ? toProvider(r) : null;
    },
    async list(orgId, page, limit) {
      const [rows, total] = await storage
        .em()
        .findAndCount(
          ServiceProviderEntity,
          { orgId },
          { orderBy: { createdAt: 'asc', id: 'asc' }, limit, offset: (page - 1) * limit },
        );
      return { providers: (rows as ServiceProviderRow[]).map(toProvider), total };
    },
    async removeForOrg(orgId, em) {
      await em.nativeDelete(ServiceProviderEntity, { orgId });
    },
  };
}
