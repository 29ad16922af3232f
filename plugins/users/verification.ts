/**
 * Verification requests (schema.graphql `VerificationRequest`): the pending proofs of an email
 * address, e.g. `basic_auth_signup` when `--enable-email-verification` is on. Only a SHA-256
 * digest of the token is stored, so a database read never yields a usable link; the plain token
 * leaves once, in the event the email plugin consumes to send the mail. They belong to the
 * user's email, and `delete_user` removes them with the user.
 */
import { createHash, randomBytes } from 'node:crypto';
import { defineEntity } from '@mikro-orm/core';
import type { Storage } from '../../core/storage.js';
import { newId } from '../../storage/index.js';

export const VERIFICATION_TABLE = 'latchkey_verification_requests';
/** Lifetime of an emailed verification link. */
export const VERIFICATION_TTL_SECONDS = 30 * 60;

export const VerificationEntity = defineEntity({
  name: 'LatchkeyVerificationRequest',
  tableName: VERIFICATION_TABLE,
  properties: (p) => ({
    id: p.string().primary().length(64),
    identifier: p.string().length(64),
    tokenHash: p.string().length(64).index(),
    email: p.string().length(320).index(),
    userId: p.string().length(64).nullable().index(),
    expiresAt: p.bigint('number'),
    createdAt: p.bigint('number'),
    updatedAt: p.bigint('number'),
    nonce: p.string().length(64),
    redirectUri: p.text().nullable(),
  }),
});

export interface VerificationRecord {
  id: string;
  identifier: string;
  /** The SHA-256 digest (base64url) of the token; the token itself is never stored. */
  tokenHash: string;
  email: string;
  userId: string | null;
  expiresAt: number;
  createdAt: number;
  updatedAt: number;
  nonce: string;
  redirectUri: string | null;
}

/** A row as stored; drivers may hand the bigint columns back as strings, see toRecord. */
type VerificationRow = VerificationRecord;

export interface NewVerification {
  identifier: string;
  email: string;
  userId?: string;
  redirectUri?: string;
}

/**
 * The stored requests. New ones are written by the users service, with the address they are
 * about (newVerificationRow).
 */
export interface VerificationRequestsService {
  list(q: { page: number; limit: number }): Promise<{ requests: VerificationRecord[]; total: number }>;
  /** Every request of a user (by id or email). Returns how many were removed. */
  deleteForUser(user: { id: string; email: string | null }): Promise<number>;
  /**
   * Takes the request a token belongs to, once: of two concurrent calls with one token only one
   * gets it. Null for an unknown, spent or expired token (an expired one is removed too).
   */
  consume(token: string): Promise<VerificationRecord | null>;
  /**
   * Stores a new request for an address already saved (a resend), replacing the pending ones of
   * the same identifier and address; answers it with its plain token, for the mail.
   */
  request(input: NewVerification): Promise<{ record: VerificationRecord; token: string }>;
}

export const digestToken = (token: string): string => createHash('sha256').update(token).digest('base64url');

const toRecord = (r: VerificationRow): VerificationRecord => ({
  ...r,
  expiresAt: Number(r.expiresAt),
  createdAt: Number(r.createdAt),
  updatedAt: Number(r.updatedAt),
});

/**
 * A new request's row and its plain token. The users service stores it in the same commit as the
 * address it is about (create, update): an address saved with no request to prove it, or a
 * request for an address that was never saved, is not left behind by a failed write.
 */
export function newVerificationRow(input: NewVerification): { row: VerificationRecord; token: string } {
  const token = randomBytes(32).toString('base64url');
  const t = Math.floor(Date.now() / 1000);
  return {
    token,
    row: {
      id: newId(),
      identifier: input.identifier,
      tokenHash: digestToken(token),
      email: input.email,
      userId: input.userId ?? null,
      expiresAt: t + VERIFICATION_TTL_SECONDS,
      createdAt: t,
      updatedAt: t,
      nonce: randomBytes(16).toString('base64url'),
      redirectUri: input.redirectUri ?? null,
    },
  };
}

export function createVerificationRequests(storage: Storage): VerificationRequestsService {
  return {
    async list({ page, limit }) {
      const [rows, total] = await storage.em().findAndCount(VerificationEntity, {} as never, {
        orderBy: { createdAt: 'desc', id: 'desc' } as never,
        limit,
        offset: (page - 1) * limit,
      });
      return { requests: (rows as unknown as VerificationRow[]).map(toRecord), total };
    },
    async deleteForUser(user) {
      const em = storage.em();
      const byId = await em.nativeDelete(VerificationEntity, { userId: user.id } as never);
      const byEmail = user.email ? await em.nativeDelete(VerificationEntity, { email: user.email } as never) : 0;
      return byId + byEmail;
    },
    async consume(token) {
      if (token.length === 0 || token.length > 256) return null;
      const em = storage.em();
      const row = (await em.findOne(VerificationEntity, {
        tokenHash: digestToken(token),
      } as never)) as VerificationRow | null;
      if (!row) return null;
      const record = toRecord(row);
      const taken = await em.nativeDelete(VerificationEntity, { id: record.id } as never);
      if (taken !== 1 || record.expiresAt < Math.floor(Date.now() / 1000)) return null;
      return record;
    },
    async request(input) {
      const em = storage.em();
      await em.nativeDelete(VerificationEntity, { identifier: input.identifier, email: input.email } as never);
      const { row, token } = newVerificationRow(input);
      em.create(VerificationEntity, row as never);
      await em.flush();
      return { record: row, token };
    },
  };
}
