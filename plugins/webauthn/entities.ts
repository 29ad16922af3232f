/** Passkeys (WebAuthn public-key credentials) of users: the public key, its signature counter and use times. */
import { defineEntity } from '@mikro-orm/core';

/** Credential ids are at most 1023 bytes (WebAuthn §5.8.3); ids this long (384 bytes) cover every authenticator seen. */
export const MAX_CREDENTIAL_ID_LENGTH = 512;

export interface WebauthnCredentialRow {
  id: string;
  credentialId: string;
  userId: string;
  name: string;
  publicKey: string;
  counter: number;
  transports: string[];
  createdAt: number;
  updatedAt: number;
  lastUsedAt: number | null;
}

export const WebauthnCredentialEntity = defineEntity({
  name: 'LatchkeyWebauthnCredential',
  tableName: 'latchkey_webauthn_credentials',
  properties: (p) => ({
    id: p.string().primary().length(64),
    credentialId: p.string().length(MAX_CREDENTIAL_ID_LENGTH).fieldName('credential_id').unique(),
    userId: p.string().length(64).fieldName('user_id').index(),
    name: p.string().length(128),
    publicKey: p.text().fieldName('public_key'),
    counter: p.bigint('number'),
    transports: p.json<string[]>(),
    createdAt: p.bigint('number').fieldName('created_at'),
    updatedAt: p.bigint('number').fieldName('updated_at'),
    lastUsedAt: p.bigint('number').nullable().fieldName('last_used_at'),
  }),
});
