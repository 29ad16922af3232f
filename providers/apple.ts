/**
 * Sign in with Apple: an OpenID Connect issuer with three differences. The client secret is an
 * ES256 JWT signed with the developer's key (`--apple-client-secret` holds the key's PEM, with
 * `--apple-team-id` and `--apple-key-id`), made with jose; the callback is a form POST when
 * name or email is asked for; and the user's name comes once, on the first authorization, as a
 * `user` JSON form field next to the code (never in the ID token).
 */
import { importPKCS8, SignJWT } from 'jose';
import { defineProvider, optionalString } from './kit.js';
import { oidcProfile } from './oidc-profile.js';

/** Apple accepts client secrets valid up to six months; one hour keeps a leaked one short-lived. */
const SECRET_TTL_S = 3600;

function firstAuthorizationName(raw: string | undefined): { givenName?: string; familyName?: string } {
  if (!raw || raw.length > 4096) return {};
  try {
    const user = JSON.parse(raw) as { name?: Record<string, unknown> };
    const name = user.name && typeof user.name === 'object' ? user.name : undefined;
    const givenName = optionalString(name, 'firstName');
    const familyName = optionalString(name, 'lastName');
    return { ...(givenName ? { givenName } : {}), ...(familyName ? { familyName } : {}) };
  } catch {
    return {};
  }
}

export const appleProvider = defineProvider({
  name: 'apple',
  label: 'Apple',
  issuer: 'https://appleid.apple.com',
  scopes: ['name', 'email'],
  pkce: false,
  formPost: true,
  userinfo: false,
  flags: [
    { name: 'apple-team-id', type: 'string', description: 'Apple developer team id (the client secret JWT issuer).' },
    {
      name: 'apple-key-id',
      type: 'string',
      description: 'Id of the Sign in with Apple key whose PEM is --apple-client-secret.',
    },
  ],
  validateConfig(config) {
    if (!config.has('apple-team-id') || !config.has('apple-key-id'))
      return '--apple-team-id and --apple-key-id are required with --apple-client-id';
    if (!(config.string('apple-client-secret') ?? '').includes('-----BEGIN PRIVATE KEY-----'))
      return '--apple-client-secret must be the PEM (PKCS #8) of a Sign in with Apple key';
    return undefined;
  },
  async clientSecret(config, issuer) {
    const key = await importPKCS8(config.string('apple-client-secret') ?? '', 'ES256');
    return new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: config.string('apple-key-id') ?? '' })
      .setIssuer(config.string('apple-team-id') ?? '')
      .setSubject(config.string('apple-client-id') ?? '')
      .setAudience(issuer)
      .setIssuedAt()
      .setExpirationTime(`${SECRET_TTL_S}s`)
      .sign(key);
  },
  profile(input) {
    return { ...oidcProfile(input), ...firstAuthorizationName(input.callback.user) };
  },
});
