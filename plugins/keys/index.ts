/**
 * The keys plugin: JWT signing keys, the JWKS document and encryption at rest. Token issuance
 * (accounts, OAuth) builds on the `keys` service.
 */
import { SignJWT, jwtVerify, type JWK } from 'jose';
import { definePlugin } from '../../core/plugin.js';
import { loadSigningKeys, type SigningKeys } from './load.js';
import { checkKeyRules, JWT_TYPES, type JwtType } from './rules.js';
import { deriveKey, open, seal } from './seal.js';

export interface KeysService {
  /** The current signing key; `verifiers` holds it plus keys kept for rotation. */
  readonly current: SigningKeys;
  readonly verifiers: readonly SigningKeys[];
  /** The JWKS document (public keys only; empty for HMAC deployments). */
  jwks(): { keys: JWK[] };
  /** Encrypts a value at rest for one purpose (AES-256-GCM, SPEC.md --encryption-key). */
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
    { name: 'jwt-type', type: 'string', required: true, choices: JWT_TYPES, description: 'JWT algorithm: HS256/384/512 with --jwt-secret, or RS*/ES* with --jwt-private-key and --jwt-public-key (RS256 recommended).' },
    { name: 'jwt-secret', type: 'string', secret: true, description: 'HMAC secret for HS* JWT types.' },
    { name: 'jwt-private-key', type: 'string', secret: true, description: 'PKCS#8 PEM private key (text or file path) for RS*/ES* JWT types.' },
    { name: 'jwt-public-key', type: 'string', description: 'SPKI PEM public key (text or file path) for RS*/ES* JWT types.' },
    { name: 'encryption-key', type: 'string', secret: true, description: 'Key for encryption at rest (TOTP secrets, OTP digests); required for RS*/ES* without --jwt-secret; HMAC deployments fall back to the JWT secret.' },
  ],
  validateConfig: checkKeyRules,
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
  async setup({ config }) {
    const alg = config.string('jwt-type') as JwtType;
    const current = await loadSigningKeys(alg, config.string('jwt-secret'), config.string('jwt-private-key'), config.string('jwt-public-key'));
    // A private key that does not match its public key would issue tokens nobody can verify.
    const probe = await new SignJWT({}).setProtectedHeader({ alg }).sign(current.signKey);
    await jwtVerify(probe, current.verifyKey).catch(() => {
      throw new Error('--jwt-private-key and --jwt-public-key do not belong together');
    });
    const key = deriveKey(config.string('encryption-key') ?? config.string('jwt-secret') ?? '', 'latchkey encryption at rest v1');
    const verifiers = [current];
    return {
      current,
      verifiers,
      jwks: () => ({ keys: verifiers.flatMap((k) => (k.publicJwk ? [k.publicJwk] : [])) }),
      seal: (plaintext, purpose) => seal(key, plaintext, purpose),
      open: (sealed, purpose) => open(key, sealed, purpose),
    };
  },
});
