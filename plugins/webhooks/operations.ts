/**
 * The webhook admin operations (event subscriptions): add, update,
 * delete, one, list, delivery logs by webhook, and a test delivery to any endpoint.
 */
import type { RequestContext } from '../../core/context.js';
import { defineOperation, type AnyOperation } from '../../core/operations.js';
import { MessageResponse, pageOf, paginationOf } from '../../core/schema.js';
import type { WebhookLogRow, WebhookRow } from './entities.js';
import {
  AddWebhookRequest,
  ListWebhookLogRequest,
  PaginatedRequest,
  TestEndpointRequest,
  TestEndpointResponse,
  UpdateWebhookRequest,
  Webhook,
  WebhookLogs,
  WebhookRequest,
  Webhooks,
} from './schemas.js';

const webhooks = (ctx: RequestContext) => ctx.kernel.service('webhooks');

/** `add_webhook` answers only a message; the audit record reads the new id from here. */
const CREATED = 'webhooks.created';

const webhookDto = (r: WebhookRow) => ({
  id: r.id,
  event_name: r.eventName,
  ...(r.eventDescription !== null ? { event_description: r.eventDescription } : {}),
  endpoint: r.endpoint,
  enabled: r.enabled,
  headers: r.headers ? (JSON.parse(r.headers) as Record<string, string>) : {},
  created_at: Number(r.createdAt),
  updated_at: Number(r.updatedAt),
});

const logDto = (r: WebhookLogRow) => ({
  id: r.id,
  http_status: r.httpStatus,
  ...(r.response !== null ? { response: r.response } : {}),
  ...(r.request !== null ? { request: r.request } : {}),
  webhook_id: r.webhookId,
  created_at: Number(r.createdAt),
  updated_at: Number(r.updatedAt),
});

export const webhookOperations: AnyOperation[] = [
  defineOperation({
    name: '_add_webhook',
    kind: 'mutation',
    access: 'admin',
    description: 'Registers a webhook for one event; deliveries are signed with the client secret.',
    input: AddWebhookRequest,
    output: MessageResponse,
    audit: {
      action: 'webhook.create',
      resourceType: 'webhook',
      resourceId: ({ ctx }) => ctx.locals.get(CREATED) as string | undefined,
      metadata: ({ input }) => ({ event_name: input.event_name, enabled: input.enabled }),
    },
    handler: async (ctx, input) => {
      const row = await webhooks(ctx).add(input);
      ctx.locals.set(CREATED, row.id);
      return { message: 'Added webhook successfully' };
    },
  }),
  defineOperation({
    name: '_update_webhook',
    kind: 'mutation',
    access: 'admin',
    description: "Changes a webhook's event, endpoint, headers or enabled state.",
    input: UpdateWebhookRequest,
    output: MessageResponse,
    audit: {
      action: 'webhook.update',
      resourceType: 'webhook',
      resourceId: ({ input }) => input.id,
      metadata: ({ input }) => ({ fields: Object.keys(input).filter((k) => k !== 'id') }),
    },
    handler: async (ctx, input) => {
      await webhooks(ctx).update(input);
      return { message: 'Updated webhook successfully' };
    },
  }),
  defineOperation({
    name: '_delete_webhook',
    kind: 'mutation',
    access: 'admin',
    description: 'Deletes a webhook with its delivery logs and undelivered events.',
    input: WebhookRequest,
    output: MessageResponse,
    audit: { action: 'webhook.delete', resourceType: 'webhook', resourceId: ({ input }) => input.id },
    handler: async (ctx, input) => {
      await webhooks(ctx).remove(input.id);
      return { message: 'Deleted webhook successfully' };
    },
  }),
  defineOperation({
    name: '_webhook',
    kind: 'query',
    access: 'admin',
    description: 'One webhook by id.',
    input: WebhookRequest,
    output: Webhook,
    audit: { action: 'webhook.read', resourceType: 'webhook', resourceId: ({ input }) => input.id },
    handler: async (ctx, input) => webhookDto(await webhooks(ctx).get(input.id)),
  }),
  defineOperation({
    name: '_webhooks',
    kind: 'query',
    access: 'admin',
    description: 'Registered webhooks, newest first.',
    input: PaginatedRequest,
    output: Webhooks,
    graphql: { required: false },
    audit: { action: 'webhook.list', resourceType: 'webhook' },
    handler: async (ctx, input) => {
      const page = pageOf(input?.pagination);
      const { rows, total } = await webhooks(ctx).list(page);
      return { pagination: paginationOf(page, total), webhooks: rows.map(webhookDto) };
    },
  }),
  defineOperation({
    name: '_webhook_logs',
    kind: 'query',
    access: 'admin',
    description: 'Delivery attempts, newest first, optionally of one webhook (webhook_id).',
    input: ListWebhookLogRequest,
    output: WebhookLogs,
    graphql: { required: false },
    audit: { action: 'webhook_log.list', resourceType: 'webhook', resourceId: ({ input }) => input.webhook_id },
    handler: async (ctx, input) => {
      const page = pageOf(input?.pagination);
      const { rows, total } = await webhooks(ctx).logs(input?.webhook_id, page);
      return { pagination: paginationOf(page, total), webhook_logs: rows.map(logDto) };
    },
  }),
  defineOperation({
    name: '_test_endpoint',
    kind: 'mutation',
    access: 'admin',
    description:
      'Sends a simulated, signed delivery of event_name to endpoint (with optional headers) and answers its status and response.',
    input: TestEndpointRequest,
    output: TestEndpointResponse,
    audit: {
      action: 'webhook.test_endpoint',
      resourceType: 'webhook_endpoint',
      // Without its query: a URL may carry a key there, and the log never holds secrets.
      metadata: ({ input, output }) => ({
        endpoint: input.endpoint.split(/[?#]/)[0],
        event_name: input.event_name,
        ...(output ? { http_status: output.http_status } : {}),
      }),
    },
    handler: async (ctx, input) => webhooks(ctx).testEndpoint(input),
  }),
];
