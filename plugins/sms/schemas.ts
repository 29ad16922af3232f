/** Input and output types of the sms admin operations (the outbox listing and the retry). */
import { InputObject, Int64, OutputObject, Pagination, PaginationRequest, Str, Type } from '../../core/schema.js';

/** `_sms_outbox`: the text queue, filtered by status (as `_email_outbox`). */
export const ListSmsOutboxRequest = InputObject('ListSmsOutboxRequest', {
  pagination: Type.Optional(PaginationRequest),
  status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('sent'), Type.Literal('failed')])),
});

export const SmsOutboxEntry = OutputObject('SmsOutboxEntry', {
  id: Type.String(),
  recipient: Type.String({
    description: 'The number masked: + and a * per hidden digit, then its last four digits (two below ten digits).',
  }),
  status: Type.String(),
  attempts: Int64(),
  last_error: Type.Optional(Type.String()),
  created_at: Int64(),
  sent_at: Type.Optional(Int64()),
  expires_at: Type.Optional(
    Int64({ description: 'When the code the text carries stops working; a failed text is not retried after it.' }),
  ),
});

export const SmsOutbox = OutputObject('SmsOutbox', {
  pagination: Pagination,
  entries: Type.Array(SmsOutboxEntry),
  sent: Int64({ description: 'Texts this process has delivered since start.' }),
  failed: Int64({ description: 'Texts this process has given up on since start.' }),
});

export const RetrySmsRequest = InputObject('RetrySmsRequest', { id: Str({ max: 64, min: 1 }) });
