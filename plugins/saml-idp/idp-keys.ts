/**
 * An organization's IdP signing keys. One key is `current` (signs, published in the metadata);
 * a rotation makes a new current key and demotes the previous one to `active` (still published,
 * so SPs that refresh their metadata know both while they switch); retiring an active key takes
 * it out of the metadata. The private key is sealed at rest by the keys service, bound to the
 * key's id, and opened only to sign.
 */
import type { EntityManager } from '@mikro-orm/core';
import { ServiceError } from '../../core/errors.js';
import type { Storage } from '../../core/storage.js';
import { newId } from '../../storage/ids.js';
import type { KeysService } from '../keys/index.js';
import { IdpKeyEntity, type IdpKeyRow, type IdpKeyStatus } from './entities.js';
import { KEY_ALGORITHM, newSigningKey, type NewSigningKey } from './signing-certificate.js';

export interface IdpKey {
  id: string;
  orgId: string;
  certPem: string;
  algorithm: string;
  status: IdpKeyStatus;
  createdAt: number;
}

export interface IdpSigner {
  key: IdpKey;
  privateKeyPem: string;
}

export const keyNotFound = () => new ServiceError('not_found', 'saml idp key not found');

const toKey = (r: IdpKeyRow): IdpKey => ({
  id: r.id,
  orgId: r.orgId,
  certPem: r.certPem,
  algorithm: r.algorithm,
  status: r.status,
  createdAt: Number(r.createdAt),
});

const purposeOf = (keyId: string) => `saml-idp-key:${keyId}`;
const oldestFirst = (a: IdpKeyRow, b: IdpKeyRow) =>
  Number(a.createdAt) - Number(b.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export interface IdpKeys {
  /** Every key of the organization that is not retired, the current one first. */
  published(orgId: string): Promise<IdpKey[]>;
  /** Every key of the organization, retired ones included, newest first. */
  all(orgId: string): Promise<IdpKey[]>;
  get(id: string): Promise<IdpKey | null>;
  /** The current key with its private key, made on first use. */
  signer(orgId: string, commonName: string): Promise<IdpSigner>;
  /** A new current key; the current one becomes active (published, not signing). */
  rotate(orgId: string, commonName: string): Promise<IdpKey>;
  /** An active key leaves the metadata; the current key cannot be retired. */
  retire(id: string): Promise<IdpKey>;
  removeForOrg(orgId: string, em: EntityManager): Promise<void>;
}

export function createIdpKeys(storage: Storage, keys: KeysService): IdpKeys {
  const rows = async (orgId: string, em: EntityManager = storage.em()) =>
    (await em.find(IdpKeyEntity, { orgId })) as IdpKeyRow[];

  async function insert(em: EntityManager, orgId: string, made: NewSigningKey): Promise<IdpKeyRow> {
    const id = newId();
    const now = Date.now();
    const r: IdpKeyRow = {
      id,
      orgId,
      certPem: made.certPem,
      sealedPrivateKey: keys.seal(made.privateKeyPem, purposeOf(id)),
      algorithm: KEY_ALGORITHM,
      status: 'current',
      createdAt: now,
      updatedAt: now,
    };
    await em.insert(IdpKeyEntity, r as never);
    return r;
  }

  /**
   * The current key. Two first uses at once may both make one: the oldest current key wins and
   * the others are demoted to active, so every node signs with the same key.
   */
  async function current(orgId: string, commonName: string): Promise<IdpKeyRow> {
    const em = storage.em();
    let currents = (await rows(orgId, em)).filter((r) => r.status === 'current').sort(oldestFirst);
    if (currents.length === 0) {
      await insert(em, orgId, await newSigningKey(commonName));
      currents = (await rows(orgId, em)).filter((r) => r.status === 'current').sort(oldestFirst);
    }
    const [winner, ...others] = currents;
    if (others.length > 0) {
      await em.nativeUpdate(IdpKeyEntity, { id: { $in: others.map((o) => o.id) } }, { status: 'active' });
    }
    return winner!;
  }

  return {
    async published(orgId) {
      const all = (await rows(orgId)).filter((r) => r.status !== 'retired').sort(oldestFirst);
      const order = (r: IdpKeyRow) => (r.status === 'current' ? 0 : 1);
      return all.sort((a, b) => order(a) - order(b) || -oldestFirst(a, b)).map(toKey);
    },
    async all(orgId) {
      return (await rows(orgId)).sort((a, b) => -oldestFirst(a, b)).map(toKey);
    },
    async get(id) {
      if (id.length === 0 || id.length > 64) return null;
      const r = (await storage.em().findOne(IdpKeyEntity, { id })) as IdpKeyRow | null;
      return r ? toKey(r) : null;
    },
    async signer(orgId, commonName) {
      const r = await current(orgId, commonName);
      const privateKeyPem = keys.open(r.sealedPrivateKey, purposeOf(r.id));
      if (!privateKeyPem)
        throw new ServiceError('internal', 'the signing key cannot be opened with this encryption key');
      return { key: toKey(r), privateKeyPem };
    },
    async rotate(orgId, commonName) {
      // The key pair is made before the transaction: generating it takes a while.
      const made = await newSigningKey(commonName);
      return storage.em().transactional(async (em) => {
        await em.nativeUpdate(IdpKeyEntity, { orgId, status: 'current' }, { status: 'active', updatedAt: Date.now() });
        return toKey(await insert(em, orgId, made));
      });
    },
    async retire(id) {
      const em = storage.em();
      const r =
        id.length > 0 && id.length <= 64 ? ((await em.findOne(IdpKeyEntity, { id })) as IdpKeyRow | null) : null;
      if (!r) throw keyNotFound();
      if (r.status === 'current')
        throw new ServiceError('failed_precondition', 'the current signing key cannot be retired; rotate first');
      if (r.status !== 'retired') {
        r.status = 'retired';
        r.updatedAt = Date.now();
        await em.flush();
      }
      return toKey(r);
    },
    async removeForOrg(orgId, em) {
      await em.nativeDelete(IdpKeyEntity, { orgId });
    },
  };
}
