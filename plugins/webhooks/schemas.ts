/** Requests and answers of the webhook admin operations (the GraphQL schema's names and fields). */
import {
  Bool,
  InputObject,
  Int64,
  OptBool,
  OptJsonMap,
  OptStr,
  OutputObject,
  Pagination,
  PaginationRequest,
  Str,
  Type,
} from '../../core/schema.js';

export const MAX_EVENT_NAME = 128;
export const MAX_EVENT_DESCRIPTION = 1024;
export const MAX_ENDPOINT = 2048;

export const AddWebhookRequest = InputObject('AddWebhookRequest', {
  event_name: Str({ max: MAX_EVENT_NAME, min: 1 }),
  event_description: OptStr({ max: MAX_EVENT_DESCRIPTION }),
  endpoint: Str({ max: MAX_ENDPOINT, min: 1 }),
  enabled: Bool(),
  headers: OptJsonMap('Extra request headers sent with every delivery (string values).'),
});

export const UpdateWebhookRequest = InputObject('UpdateWebhookRequest', {
  id: Str({ max: 64, min: 1 }),
  event_name: OptStr({ max: MAX_EVENT_NAME, min: 1 }),
  event_description: OptStr({ max: MAX_EVENT_DESCRIPTION }),
  endpoint: OptStr({ max: MAX_ENDPOINT, min: 1 }),
  enabled: OptBool(),
  headers: OptJsonMap('Replaces the extra request headers ({} removes them).'),
});

export const WebhookRequest = InputObject('WebhookRequest', { id: Str({ max: 64, min: 1 }) });

/** The same shape and name as the other paginated admin lists. */
export const PaginatedRequest = InputObject('PaginatedRequest', { pagination: Type.Optional(PaginationRequest) });

export const ListWebhookLogRequest = InputObject('ListWebhookLogRequest', {
  pagination: Type.Optional(PaginationRequest),
  webhook_id: OptStr({ max: 64 }),
});

export const TestEndpointRequest = InputObject('TestEndpointRequest', {
  endpoint: Str({ max: MAX_ENDPOINT, min: 1 }),
  event_name: Str({ max: MAX_EVENT_NAME, min: 1 }),
  event_description: OptStr({ max: MAX_EVENT_DESCRIPTION }),
  headers: OptJsonMap('Extra request headers (string values).'),
});

const OptText = () => Type.Optional(Type.String());

export const Webhook = OutputObject('Webhook', {
  id: Type.String(),
  event_name: Type.String(),
  event_description: OptText(),
  endpoint: Type.String(),
  enabled: Bool(),
  headers: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { 'x-scalar': 'Map' })),
  created_at: Int64(),
  updated_at: Int64(),
});

export const Webhooks = OutputObject('Webhooks', { pagination: Pagination, webhooks: Type.Array(Webhook) });

export const WebhookLog = OutputObject('WebhookLog', {
  id: Type.String(),
  http_status: Int64(),
  response: OptText(),
  request: OptText(),
  webhook_id: Type.String(),
  created_at: Int64(),
  updated_at: Int64(),
});

export const WebhookLogs = OutputObject('WebhookLogs', {
  pagination: Pagination,
  webhook_logs: Type.Array(WebhookLog),
});

export const TestEndpointResponse = OutputObject('TestEndpointResponse', {
  http_status: Int64(),
  response: Type.String(),
});
