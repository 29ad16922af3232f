/**
 * The email admin operations: the four template operations (add, update, delete, list) and the
 * outbox listing (`_email_outbox`, where failed mail is visible) and `_retry_email`.
 */
import type { RequestContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { defineOperation, type AnyOperation } from '../../core/operations.js';
import { MessageResponse, pageOf, paginationOf } from '../../core/schema.js';
import type { TemplateRow } from './entities.js';
import type { Outbox } from './outbox.js';
import {
  AddEmailTemplateRequest,
  DeleteEmailTemplateRequest,
  EmailOutbox,
  EmailTemplates,
  ListEmailOutboxRequest,
  PaginatedRequest,
  RetryEmailRequest,
  UpdateEmailTemplateRequest,
} from './schemas.js';
import type { TemplateStore } from './template-store.js';

/** What the operations reach: kept per kernel, under its storage (one per kernel), never shared. */
export interface EmailInternals {
  templates: TemplateStore;
  outbox: Outbox;
}

const internals = new WeakMap<object, EmailInternals>();
export const attachInternals = (storage: object, value: EmailInternals): void => void internals.set(storage, value);
const of = (ctx: RequestContext): EmailInternals => {
  const found = internals.get(ctx.kernel.storage);
  if (!found) throw new Error('email plugin is not set up');
  return found;
};

const templateDto = (r: TemplateRow) => ({
  id: r.id,
  event_name: r.eventName,
  template: r.template,
  ...(r.design !== null ? { design: r.design } : {}),
  subject: r.subject,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

export const emailOperations: AnyOperation[] = [
  defineOperation({
    name: '_add_email_template',
    kind: 'mutation',
    access: 'admin',
    description: 'Adds the template of an event (one per event); a template that does not compile is refused.',
    input: AddEmailTemplateRequest,
    output: MessageResponse,
    audit: {
      action: 'email_template.create',
      resourceType: 'email_template',
      resourceId: ({ input }) => input.event_name,
    },
    handler: async (ctx, input) => {
      await of(ctx).templates.add(input);
      return { message: 'Email template added successfully' };
    },
  }),
  defineOperation({
    name: '_update_email_template',
    kind: 'mutation',
    access: 'admin',
    description: 'Updates an email template; a template that does not compile is refused.',
    input: UpdateEmailTemplateRequest,
    output: MessageResponse,
    audit: { action: 'email_template.update', resourceType: 'email_template', resourceId: ({ input }) => input.id },
    handler: async (ctx, input) => {
      const { id, ...fields } = input;
      await of(ctx).templates.update(id, fields);
      return { message: 'Email template updated successfully' };
    },
  }),
  defineOperation({
    name: '_delete_email_template',
    kind: 'mutation',
    access: 'admin',
    description: "Deletes an email template; the event's default template applies again.",
    input: DeleteEmailTemplateRequest,
    output: MessageResponse,
    audit: { action: 'email_template.delete', resourceType: 'email_template', resourceId: ({ input }) => input.id },
    handler: async (ctx, input) => {
      await of(ctx).templates.remove(input.id);
      return { message: 'Email template deleted successfully' };
    },
  }),
  defineOperation({
    name: '_email_templates',
    kind: 'query',
    access: 'admin',
    description: 'Lists the email templates, newest first.',
    input: PaginatedRequest,
    output: EmailTemplates,
    audit: { action: 'email_template.list', resourceType: 'email_template' },
    graphql: { required: false },
    handler: async (ctx, input) => {
      const page = pageOf(input?.pagination);
      const { rows, total } = await of(ctx).templates.list(page);
      return { pagination: paginationOf(page, total), email_templates: rows.map(templateDto) };
    },
  }),
  defineOperation({
    name: '_email_outbox',
    kind: 'query',
    access: 'admin',
    description: 'Lists queued, sent and failed mail, newest first (never the message bodies).',
    input: ListEmailOutboxRequest,
    output: EmailOutbox,
    audit: { action: 'email.list', resourceType: 'email' },
    graphql: { required: false },
    handler: async (ctx, input) => {
      const page = pageOf(input?.pagination);
      const { outbox } = of(ctx);
      const { rows, total } = await outbox.list({ ...(input?.status ? { status: input.status } : {}), ...page });
      const stats = outbox.stats();
      return {
        pagination: paginationOf(page, total),
        entries: rows.map((r) => ({
          id: r.id,
          event_name: r.event,
          recipient: r.recipient,
          subject: r.subject,
          status: r.status,
          attempts: r.attempts,
          ...(r.lastError !== null ? { last_error: r.lastError } : {}),
          created_at: Math.floor(r.createdAt / 1000),
          ...(r.sentAt !== null ? { sent_at: Math.floor(r.sentAt / 1000) } : {}),
        })),
        sent: stats.sent,
        failed: stats.failed,
      };
    },
  }),
  defineOperation({
    name: '_retry_email',
    kind: 'mutation',
    access: 'admin',
    description: 'Queues a failed mail again.',
    input: RetryEmailRequest,
    output: MessageResponse,
    audit: { action: 'email.retry', resourceType: 'email', resourceId: ({ input }) => input.id },
    handler: async (ctx, input) => {
      if (!(await of(ctx).outbox.retry(input.id))) throw notFound('no failed email with this id');
      return { message: 'Email queued again' };
    },
  }),
];
