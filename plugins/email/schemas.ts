/** Input and output types of the email admin operations. */
import {
  InputObject,
  Int64,
  OptStr,
  OutputObject,
  Pagination,
  PaginationRequest,
  Str,
  Type,
} from '../../core/schema.js';

const TEMPLATE_MAX = 32_768;

export const AddEmailTemplateRequest = InputObject('AddEmailTemplateRequest', {
  event_name: Str({ max: 64, min: 1 }),
  subject: Str({ max: 998, min: 1 }),
  template: Str({ max: TEMPLATE_MAX, min: 1 }),
  design: OptStr({ max: TEMPLATE_MAX }),
});

export const UpdateEmailTemplateRequest = InputObject('UpdateEmailTemplateRequest', {
  id: Str({ max: 64, min: 1 }),
  event_name: OptStr({ max: 64 }),
  template: OptStr({ max: TEMPLATE_MAX }),
  subject: OptStr({ max: 998 }),
  design: OptStr({ max: TEMPLATE_MAX }),
});

export const DeleteEmailTemplateRequest = InputObject('DeleteEmailTemplateRequest', { id: Str({ max: 64, min: 1 }) });

/** `_email_templates` takes `{ pagination }`, as `_verification_requests` does. */
export const PaginatedRequest = InputObject('PaginatedRequest', { pagination: Type.Optional(PaginationRequest) });

const optStr = () => Type.Optional(Type.String());
export const EmailTemplate = OutputObject('EmailTemplate', {
  id: Type.String(),
  event_name: Type.String(),
  template: Type.String(),
  design: optStr(),
  subject: Type.String(),
  created_at: Type.Optional(Int64()),
  updated_at: Type.Optional(Int64()),
});

export const EmailTemplates = OutputObject('EmailTemplates', {
  pagination: Pagination,
  email_templates: Type.Array(EmailTemplate),
});

/** `_email_outbox`: the mail queue, filtered by status. */
export const ListEmailOutboxRequest = InputObject('ListEmailOutboxRequest', {
  pagination: Type.Optional(PaginationRequest),
  status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('sent'), Type.Literal('failed')])),
});

export const EmailOutboxEntry = OutputObject('EmailOutboxEntry', {
  id: Type.String(),
  event_name: Type.String(),
  recipient: Type.String(),
  subject: Type.String(),
  status: Type.String(),
  attempts: Int64(),
  last_error: optStr(),
  created_at: Int64(),
  sent_at: Type.Optional(Int64()),
});

export const EmailOutbox = OutputObject('EmailOutbox', {
  pagination: Pagination,
  entries: Type.Array(EmailOutboxEntry),
  sent: Int64({ description: 'Mails this process has delivered since start.' }),
  failed: Int64({ description: 'Mails this process has given up on since start.' }),
});

export const RetryEmailRequest = InputObject('RetryEmailRequest', { id: Str({ max: 64, min: 1 }) });
