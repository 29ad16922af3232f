/**
 * The sms admin operations, the counterparts of the mail outbox's: `_sms_outbox` lists queued,
 * sent and failed texts (never the body, which holds a one-time code, and the number masked),
 * and `_retry_sms` queues a failed text again, unless the code it carries has expired.
 */
import type { RequestContext } from '../../core/context.js';
import { failedPrecondition, notFound } from '../../core/errors.js';
import { defineOperation, type AnyOperation } from '../../core/operations.js';
import { MessageResponse, pageOf, paginationOf } from '../../core/schema.js';
import { expiryOf, type SmsOutbox } from './outbox.js';
import { ListSmsOutboxRequest, RetrySmsRequest, SmsOutbox as SmsOutboxAnswer } from './schemas.js';

/** What the operations reach: kept per kernel, under its storage (one per kernel), never shared. */
export interface SmsInternals {
  outbox: SmsOutbox;
}

const internals = new WeakMap<object, SmsInternals>();
export const attachInternals = (storage: object, value: SmsInternals): void => void internals.set(storage, value);
const of = (ctx: RequestContext): SmsInternals => {
  const found = internals.get(ctx.kernel.storage);
  if (!found) throw new Error('sms plugin is not set up');
  return found;
};

/**
 * A phone number as the listing shows it: `+`, a `*` for each hidden digit, and the last four
 * digits (the last two for numbers of fewer than ten digits, so that most of a short number
 * stays hidden): enough to tell texts apart, not enough to read a number off the outbox.
 */
export function maskedNumber(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  const shown = Math.min(digits.length >= 10 ? 4 : 2, digits.length);
  return `+${'*'.repeat(digits.length - shown)}${digits.slice(digits.length - shown)}`;
}

const seconds = (ms: number): number => Math.floor(ms / 1000);

export const smsOperations: AnyOperation[] = [
  defineOperation({
    name: '_sms_outbox',
    kind: 'query',
    access: 'admin',
    description: 'Lists queued, sent and failed texts, newest first (never the bodies; numbers masked).',
    input: ListSmsOutboxRequest,
    output: SmsOutboxAnswer,
    audit: { action: 'sms.list', resourceType: 'sms' },
    graphql: { required: false },
    handler: async (ctx, input) => {
      const page = pageOf(input?.pagination);
      const { outbox } = of(ctx);
      const { rows, total } = await outbox.list({ ...(input?.status ? { status: input.status } : {}), ...page });
      const stats = outbox.stats();
      return {
        pagination: paginationOf(page, total),
        entries: rows.map((r) => {
          const expiresAt = expiryOf(r);
          return {
            id: r.id,
            recipient: maskedNumber(r.recipient),
            status: r.status,
            attempts: r.attempts,
            ...(r.lastError !== null ? { last_error: r.lastError } : {}),
            created_at: seconds(r.createdAt),
            ...(r.sentAt !== null ? { sent_at: seconds(r.sentAt) } : {}),
            ...(expiresAt !== null ? { expires_at: seconds(expiresAt) } : {}),
          };
        }),
        sent: stats.sent,
        failed: stats.failed,
      };
    },
  }),
  defineOperation({
    name: '_retry_sms',
    kind: 'mutation',
    access: 'admin',
    description:
      'Queues a failed text again; refused when the code it carries has expired (the user asks for a new one).',
    input: RetrySmsRequest,
    output: MessageResponse,
    audit: { action: 'sms.retry', resourceType: 'sms', resourceId: ({ input }) => input.id },
    handler: async (ctx, input) => {
      const outcome = await of(ctx).outbox.retry(input.id);
      if (outcome.queued) return { message: 'Text queued again' };
      if (outcome.reason === 'expired')
        throw failedPrecondition(
          `the code this text carries expired at ${new Date(outcome.expiresAt).toISOString()}: texting it again is no use, the user has to ask for a new code`,
        );
      throw notFound('no failed text with this id');
    },
  }),
];
