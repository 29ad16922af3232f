/**
 * The `webhooks` plugin: admins register endpoints per event; an
 * event any enabled plugin declares (its `events`) is written to a durable outbox and delivered,
 * signed, by a worker that retries with backoff and gives up after a bounded number of attempts,
 * each attempt in the webhook log (docs/webhooks.md). `createWebhooksPlugin` takes the delivery
 * timing; the default distribution uses `webhooksPlugin`.
 */
import { Counter, Gauge } from 'prom-client';
import { definePlugin, type PluginDefinition } from '../../core/plugin.js';
import { WebhookDeliveryEntity, WebhookEntity, WebhookLogEntity } from './entities.js';
import { webhookOperations } from './operations.js';
import { createWebhooksService, type WebhooksService } from './service.js';
import { resolveDeliveryTiming } from './delivery-timing.js';
import { createDeliveryWorker, type DeliveryTiming } from './worker.js';

export type { WebhooksService, WebhookInput } from './service.js';
export type { DeliveryTiming } from './worker.js';
export type { DeliveryRow, DeliveryState, WebhookLogRow, WebhookRow } from './entities.js';
export { deliveryBody, signature, SIGNATURE_HEADER, DELIVERY_ID_HEADER } from './delivery-body.js';

export { DEFAULT_DELIVERY_TIMING } from './delivery-timing.js';

export interface WebhooksPluginOptions {
  timing?: Partial<DeliveryTiming>;
}

export function createWebhooksPlugin(options: WebhooksPluginOptions = {}): PluginDefinition<WebhooksService> {
  const timing = resolveDeliveryTiming(options.timing);
  return definePlugin<WebhooksService>({
    name: 'webhooks',
    description: 'Webhooks: signed deliveries of the declared events through a durable outbox, with retries and logs.',
    dependsOn: ['outbound'],
    entities: [WebhookEntity, WebhookDeliveryEntity, WebhookLogEntity],
    operations: webhookOperations,
    setup: (ctx) => {
      const events = new Set(ctx.definitions.flatMap((p) => p.events ?? []));
      const clientSecret = () => ctx.config.string('client-secret') ?? '';
      const outbound = ctx.service('outbound');
      const settled = new Counter({
        name: 'latchkey_webhook_deliveries_total',
        help: 'Webhook delivery attempts by outcome: `delivered` (2xx), `retry` (failed, tried again after a backoff), `failed` (given up), and `cancelled` rows whose webhook was disabled or deleted before their attempt.',
        labelNames: ['outcome'],
        registers: [ctx.metrics],
      });
      for (const outcome of ['delivered', 'retry', 'failed', 'cancelled'] as const) settled.inc({ outcome }, 0);
      const worker = createDeliveryWorker({
        storage: ctx.storage,
        outbound,
        clientSecret,
        logger: ctx.logger,
        timing,
        onSettled: (outcome) => settled.inc({ outcome }),
      });
      new Gauge({
        name: 'latchkey_webhook_attempts_in_flight',
        help: "Webhook delivery attempts running in this process (at most the delivery timing's concurrency).",
        registers: [ctx.metrics],
        collect() {
          this.set(worker.inFlight());
        },
      });
      const service = createWebhooksService({
        storage: ctx.storage,
        outbound,
        events,
        clientSecret,
        timeoutMs: timing.timeoutMs,
        responseExcerptChars: timing.responseExcerptChars,
        worker,
      });
      // An outbox writer: an event emitted within the unit of work of its change
      // (`events.emitWithin`) has its rows written by that unit's commit; a plain `emit` writes
      // them right after the emitter's commit (docs/webhooks.md).
      for (const name of events) {
        ctx.events.addWriter(name, (event, unit) => service.enqueue(name, event.payload, unit).then(() => {}));
      }
      ctx.hooks.on('kernel.ready', () => worker.start());
      ctx.onClose(() => worker.stop());
      return service;
    },
  });
}

export const webhooksPlugin = createWebhooksPlugin();
