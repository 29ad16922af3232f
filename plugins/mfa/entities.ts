/**
 * Enrollments of the OTP-style factors (TOTP, email OTP, SMS OTP): one row per user and method.
 * The TOTP secret is stored sealed with `--encryption-key`; codes never reach this table.
 */
import { defineEntity } from '@mikro-orm/core';

export interface MfaFactorRow {
  id: string;
  userId: string;
  method: string;
  verified: boolean;
  secret: string | null;
  lastTimeStep: number | null;
  createdAt: number;
  updatedAt: number;
}

export const MfaFactorEntity = defineEntity({
  name: 'LatchkeyMfaFactor',
  tableName: 'latchkey_mfa_factors',
  uniques: [{ properties: ['userId', 'method'] }],
  properties: (p) => ({
    id: p.string().primary().length(64),
    userId: p.string().length(64).fieldName('user_id').index(),
    method: p.string().length(16),
    verified: p.boolean(),
    secret: p.text().nullable(),
    lastTimeStep: p.bigint('number').nullable().fieldName('last_time_step'),
    createdAt: p.bigint('number').fieldName('created_at'),
    updatedAt: p.bigint('number').fieldName('updated_at'),
  }),
});
