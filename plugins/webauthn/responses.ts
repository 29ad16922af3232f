/**
 * Reading what the browser sent: the credential is opaque JSON text; its shape is
 * checked before a library sees it, and the challenge is read from `clientDataJSON` to find the
 * ceremony it answers. Anything malformed is an `invalid_argument`.
 */
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { invalidArgument } from '../../core/errors.js';
import { MAX_CREDENTIAL_ID_LENGTH } from './entities.js';

const B64URL = /^[A-Za-z0-9_-]*={0,2}$/;

function object(value: unknown, what: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidArgument(`invalid ${what}`);
  return value as Record<string, unknown>;
}

function b64(value: unknown, what: string, max = 65_536): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max || !B64URL.test(value))
    throw invalidArgument(`invalid ${what}`);
  return value;
}

function parse(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidArgument('invalid credential: not JSON');
  }
  const cred = object(value, 'credential');
  b64(cred.id, 'credential.id', MAX_CREDENTIAL_ID_LENGTH);
  b64(cred.rawId, 'credential.rawId', MAX_CREDENTIAL_ID_LENGTH);
  if (cred.type !== 'public-key') throw invalidArgument('invalid credential.type');
  object(cred.response, 'credential.response');
  return cred;
}

/** The challenge the client data names (WebAuthn §5.8.1 `CollectedClientData.challenge`). */
export function challengeOf(cred: { response: { clientDataJSON: string } }): string {
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(cred.response.clientDataJSON, 'base64url').toString('utf8'));
  } catch {
    throw invalidArgument('invalid credential.response.clientDataJSON');
  }
  const challenge = object(data, 'credential.response.clientDataJSON').challenge;
  return b64(challenge, 'credential.response.clientDataJSON', 512);
}

export function parseRegistration(text: string): RegistrationResponseJSON {
  const cred = parse(text);
  const response = cred.response as Record<string, unknown>;
  b64(response.clientDataJSON, 'credential.response.clientDataJSON');
  b64(response.attestationObject, 'credential.response.attestationObject');
  return cred as unknown as RegistrationResponseJSON;
}

export function parseAuthentication(text: string): AuthenticationResponseJSON {
  const cred = parse(text);
  const response = cred.response as Record<string, unknown>;
  b64(response.clientDataJSON, 'credential.response.clientDataJSON');
  b64(response.authenticatorData, 'credential.response.authenticatorData');
  b64(response.signature, 'credential.response.signature');
  if (response.userHandle !== undefined && response.userHandle !== null)
    b64(response.userHandle, 'credential.response.userHandle', 512);
  return cred as unknown as AuthenticationResponseJSON;
}
