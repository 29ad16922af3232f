/**
 * The delivery request: a JSON body `{webhook_id, event_name, event_description,
 * user, auth_recipe?}` and its signature, the hex HMAC-SHA256 of the raw body keyed by the client
 * secret, in `X-Service-Signature`. The body is rendered once, stored in the outbox and sent as
 * stored on every attempt, so each attempt carries the same bytes and signature.
 */
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-service-signature';
/** The outbox row's id: the same on every attempt, for receivers that deduplicate. */
export const DELIVERY_ID_HEADER = 'x-service-delivery-id';

export interface DeliveryFields {
  webhookId: string;
  eventName: string;
  eventDescription: string | null;
  payload: Record<string, unknown>;
}

export function deliveryBody({ webhookId, eventName, eventDescription, payload }: DeliveryFields): string {
  return JSON.stringify({
    webhook_id: webhookId,
    event_name: eventName,
    event_description: eventDescription ?? '',
    user: payload.user ?? null,
    ...(typeof payload.auth_recipe === 'string' ? { auth_recipe: payload.auth_recipe } : {}),
  });
}

export function signature(body: string, clientSecret: string): string {
  return createHmac('sha256', clientSecret).update(body).digest('hex');
}
