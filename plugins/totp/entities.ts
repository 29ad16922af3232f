/** TOTP recovery codes: stored only as digests, each deleted by its one use. */
import { defineEntity } from '@mikro-orm/core';

export interface RecoveryCodeRow {
  id: string;
  userId: string;
  digest: string;
  createdAt: number;
}

export const RecoveryCodeEntity = defineEntity({
  name: 'LatchkeyTotpRecoveryCode',
  tableName: 'latchkey_totp_recovery_codes',
  uniques: [{ properties: ['userId', 'digest'] }],
  properties: (p) => ({
    id: p.string().primary().length(64),
    userId: p.string().length(64).fieldName('user_id').index(),
    digest: p.string().length(64),
    createdAt: p.bigint('number').fieldName('created_at'),
  }),
});
