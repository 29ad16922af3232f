/**
 * The keys plugin: JWT signing keys, the JWKS document and encryption at rest. Token issuance
 * (accounts, OAuth) builds on the `keys` service.
 */
import { SignJWT, jwtVerify, type JWK } from 'jose';
import { definePlugin } from '../../core/plugin.js';
import { createRandomPool } from '../../core/random-pool.js';
import { loadSecondaryKey, loadSigningKeys, type SigningKeys, type VerificationKey } from './load.js';
import { noteSigningKey, ROTATION_AUDIT, SigningKeyEntity } from './rotation.js';
import { checkKeyRules, JWT_TYPES, type JwtType } from './rules.js';
import { deriveKey, open, seal } from './seal.js';

export interface KeysService {
  /** The current signing key; `verifiers` holds it plus the verify-only key kept for rotation. */
  readonly current: SigningKeys;
  readonly verifiers: readonly VerificationKey[];
  /** The JWKS document: public keys only, the signing key first (empty for HMAC deployments). */
  jwks(): { keys: JWK[] };
  /** Encrypts a value at rest for one purpose (AES-256-GCM, with --encryption-key). */
  seal(plaintext: string, purpose: string): string;
  /** Opens a sealed value; null when it was not sealed by this key for this purpose. */
  open(sealed: string, purpose: string): string | null;
}

declare module '../../core/services.js' {
  interface Services {
    keys: KeysService;
  }
}

export const keysPlugin = definePlugin<KeysService>({
  name: 'keys',
  description: 'JWT signing keys, JWKS and encryption at rest.',
  flags: [
    {
      name: 'jwt-type',
      type: 'string',
      required: true,
      choices: JWT_TYPES,
      description:
        'JWT algorithm: HS256/384/512 with --jwt-secret, or RS*/ES* with --jwt-private-key and --jwt-public-key (RS256 recommended).',
    },
    { name: 'jwt-secret', type: 'string', secret: true, description: 'HMAC secret for HS* JWT types.' },
    {
      name: 'jwt-private-key',
      type: 'string',
      secret: true,
      description: 'PKCS#8 PEM private key (text or file path) for RS*/ES* JWT types.',
    },
    {
      name: 'jwt-public-key',
      type: 'string',
      description: 'SPKI PEM public key (text or file path) for RS*/ES* JWT types.',
    },
    {
      name: 'jwt-secondary-public-key',
      type: 'string',
      description:
        'Key rotation: an SPKI PEM public key (text or file path) of the --jwt-type algorithm whose tokens stay valid, published in the JWKS beside the signing key (the previous key after a rotation, or the next one before it).',
    },
    {
      name: 'jwt-secondary-secret',
      type: 'string',
      secret: true,
      description:
        'Key rotation for HS* types: a second HMAC secret whose tokens stay valid (verify only; never published).',
    },
    {
      name: 'encryption-key',
      type: 'string',
      secret: true,
      description:
        'Key for encryption at rest (TOTP secrets, OTP digests); required for RS*/ES* without --jwt-secret; HMAC deployments fall back to the JWT secret.',
    },
  ],
  validateConfig: checkKeyRules,
  entities: [SigningKeyEntity],
  auditEvents: ROTATION_AUDIT,
  routes: [
    {
      method: 'GET',
      path: '/.well-known/jwks.json',
      handler: async (_req, ctx) => ({
        status: 200,
        headers: { 'cache-control': 'public, max-age=300' },
        body: ctx.kernel.service('keys').jwks(),
      }),
    },
  ],
  async setup({ config, storage, events, hooks, logger }) {
    const alg = config.string('jwt-type') as JwtType;
    const current = await loadSigningKeys(
      alg,
      config.string('jwt-secret'),
      config.string('jwt-private-key'),
      config.string('jwt-public-key'),
    );
    // A private key that does not match its public key would issue tokens nobody can verify.
    const probe = await new SignJWT({}).setProtectedHeader({ alg }).sign(current.signKey);
    await jwtVerify(probe, current.verifyKey).catch(() => {
      throw new Error('--jwt-private-key and --jwt-public-key do not belong together');
    });
    const key = deriveKey(
      config.string('encryption-key') ?? config.string('jwt-secret') ?? '',
      'latchkey encryption at rest v1',
    );
    // Rotation (issue 5, "JWKS with a secondary key"): tokens are always signed with the current
    // key; the secondary key only verifies, so tokens it signed keep validating while they live,
    // and relying parties that cache the JWKS already know the next key before it signs.
    const secondary = await loadSecondaryKey(
      alg,
      config.string('jwt-secondary-secret'),
      config.string('jwt-secondary-public-key'),
    );
    if (secondary && secondary.kid === current.kid)
      throw new Error('the secondary key is the signing key itself; give the other key of the rotation');
    const verifiers: VerificationKey[] = secondary ? [current, secondary] : [current];
    // Once every plugin is set up (the audit log listens by then): a changed key is a rotation.
    hooks.on('kernel.ready', () => noteSigningKey({ storage, events, logger }, current));
    const random = createRandomPool();
    return {
      current,
      verifiers,
      jwks: () => ({ keys: verifiers.flatMap((k) => (k.publicJwk ? [k.publicJwk] : [])) }),
      seal: (plaintext, purpose) => seal(key, plaintext, purpose, random),
      open: (sealed, purpose) => open(key, sealed, purpose),
    };
  },
});
