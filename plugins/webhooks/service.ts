/**
 * Webhooks: registered endpoints per event, the outbox that an
 * emitted event is written to (one row per enabled webhook of that event), the delivery log, and
 * the simulated delivery of `test_endpoint`. Endpoints are reached only through the guarded
 * outbound client.
 */
import { failedPrecondition, invalidArgument, notFound } from '../../core/errors.js';
import { StampedReads } from '../../core/stamped-reads.js';
import type { Storage } from '../../core/storage.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { newId } from '../../storage/index.js';
import { findOutboundError, type OutboundService } from '../outbound/index.js';
import { DELIVERY_ID_HEADER, deliveryBody, SIGNATURE_HEADER, signature } from './delivery-body.js';
import {
  WebhookDeliveryEntity,
  WebhookEntity,
  WebhookLogEntity,
  type DeliveryRow,
  type WebhookLogRow,
  type WebhookRow,
} from './entities.js';
import { checkEndpoint, checkEventName, checkHeaders } from './validation.js';

export interface WebhookInput {
  event_name: string;
  event_description?: string;
  endpoint: string;
  enabled: boolean;
  headers?: Record<string, unknown>;
}

export type WebhookChanges = Partial<WebhookInput> & { id: string };

export interface WebhooksService {
  /** The event names webhooks may subscribe to: every `events` entry of the enabled plugins. */
  readonly events: ReadonlySet<string>;
  add(input: WebhookInput): Promise<WebhookRow>;
  update(changes: WebhookChanges): Promise<WebhookRow>;
  /** Deletes the webhook with its log and its undelivered outbox rows. */
  remove(id: string): Promise<void>;
  get(id: string): Promise<WebhookRow>;
  list(page: { limit: number; offset: number }): Promise<{ rows: WebhookRow[]; total: number }>;
  logs(
    webhookId: string | undefined,
    page: { limit: number; offset: number },
  ): Promise<{ rows: WebhookLogRow[]; total: number }>;
  /**
   * Writes an event to the outbox for every enabled webhook of it. With `unit` the rows join that
   * unit of work (the emitting change's transaction, core/unit-of-work.ts) and are written by its
   * commit, after which the worker is woken; without, at once.
   */
  enqueue(eventName: string, payload: Record<string, unknown>, unit?: UnitOfWork): Promise<number>;
  /** Sends a simulated, signed delivery to an endpoint and answers what it said. */
  testEndpoint(input: {
    endpoint: string;
    event_name: string;
    event_description?: string;
    headers?: Record<string, unknown>;
  }): Promise<{ http_status: number; response: string }>;
  /** Outbox rows (tests and operations tooling). */
  deliveries(webhookId?: string): Promise<DeliveryRow[]>;
  /** Looks at the outbox now and waits until what is due has had its attempt. */
  flush(): Promise<void>;
}

declare module '../../core/services.js' {
  interface Services {
    webhooks: WebhooksService;
  }
}

export interface WebhooksServiceOptions {
  storage: Storage;
  outbound: OutboundService;
  events: ReadonlySet<string>;
  clientSecret: () => string;
  timeoutMs: number;
  responseExcerptChars: number;
  /** The delivery worker, woken after rows are enqueued. */
  worker: { wake(): void; idle(): Promise<void> };
}

/** A user shaped like the wire type `User`, for `test_endpoint`'s simulated delivery. */
const SAMPLE_USER = {
  id: '00000000-0000-7000-8000-000000000000',
  email: 'test-user@example.com',
  email_verified: true,
  signup_methods: 'basic_auth',
  given_name: 'Test',
  family_name: 'User',
  phone_number_verified: false,
  roles: ['user'],
  created_at: 0,
  updated_at: 0,
  enrolled_mfa_methods: [],
};

const seconds = () => Math.floor(Date.now() / 1000);

/** What the outbox rows of an event need of each enabled webhook. */
type Subscriber = Pick<WebhookRow, 'id' | 'eventDescription'>;

export function createWebhooksService(o: WebhooksServiceOptions): WebhooksService {
  const em = () => o.storage.em();
  const policy = o.outbound.policy;
  const readSubscribers = async (eventName: string): Promise<Subscriber[]> => {
    const rows = (await em().find(WebhookEntity, { eventName, enabled: true } as never)) as unknown as WebhookRow[];
    return rows.map(({ id, eventDescription }) => ({ id, eventDescription }));
  };
  // Every emitted event asks which webhooks want it: every login and signup, and on most servers
  // none do. On a SQLite file the answer is kept while nothing at all has been committed to the
  // file (core/stamped-reads.ts), so a webhook added, changed or removed by this process or
  // another is seen by the next event; elsewhere it is read every time. The names are the
  // plugins' event names, a fixed set.
  const kept = o.storage.changeStamp ? new StampedReads<Subscriber[]>(o.storage.changeStamp, 1_000) : undefined;
  const subscribersOf = (eventName: string): Promise<Subscriber[]> =>
    kept
      ? kept.read(
          eventName,
          () => readSubscribers(eventName),
          () => true,
        )
      : readSubscribers(eventName);

  async function find(id: string): Promise<WebhookRow> {
    const row = (await em().findOne(WebhookEntity, { id } as never)) as WebhookRow | null;
    if (!row) throw notFound('webhook not found');
    return row;
  }

  return {
    events: o.events,

    async add(input) {
      checkEventName(input.event_name, o.events);
      checkEndpoint(input.endpoint, policy);
      const headers = checkHeaders(input.headers);
      const now = seconds();
      const row: WebhookRow = {
        id: newId(),
        eventName: input.event_name,
        eventDescription: input.event_description ?? null,
        endpoint: input.endpoint,
        enabled: input.enabled,
        headers: Object.keys(headers).length > 0 ? JSON.stringify(headers) : null,
        createdAt: now,
        updatedAt: now,
      };
      const fork = em();
      fork.create(WebhookEntity, row as never);
      await fork.flush();
      return row;
    },

    async update(changes) {
      if (changes.event_name !== undefined) checkEventName(changes.event_name, o.events);
      if (changes.endpoint !== undefined) checkEndpoint(changes.endpoint, policy);
      const headers = changes.headers !== undefined ? checkHeaders(changes.headers) : undefined;
      const current = await find(changes.id);
      const next: Partial<WebhookRow> = {
        ...(changes.event_name !== undefined ? { eventName: changes.event_name } : {}),
        ...(changes.event_description !== undefined ? { eventDescription: changes.event_description } : {}),
        ...(changes.endpoint !== undefined ? { endpoint: changes.endpoint } : {}),
        ...(changes.enabled !== undefined ? { enabled: changes.enabled } : {}),
        ...(headers !== undefined ? { headers: Object.keys(headers).length > 0 ? JSON.stringify(headers) : null } : {}),
        updatedAt: seconds(),
      };
      await em().nativeUpdate(WebhookEntity, { id: current.id } as never, next as never);
      return { ...current, ...next };
    },

    async remove(id) {
      await find(id);
      await em().transactional(async (tx) => {
        await tx.nativeDelete(WebhookDeliveryEntity, { webhookId: id, state: 'pending' } as never);
        await tx.nativeDelete(WebhookLogEntity, { webhookId: id } as never);
        await tx.nativeDelete(WebhookEntity, { id } as never);
      });
    },

    get: find,

    async list(page) {
      const [rows, total] = await em().findAndCount(WebhookEntity, {} as never, {
        orderBy: { createdAt: 'desc', id: 'desc' } as never,
        limit: page.limit,
        offset: page.offset,
      });
      return { rows: rows as unknown as WebhookRow[], total };
    },

    async logs(webhookId, page) {
      const [rows, total] = await em().findAndCount(
        WebhookLogEntity,
        (webhookId !== undefined ? { webhookId } : {}) as never,
        { orderBy: { createdAt: 'desc', id: 'desc' } as never, limit: page.limit, offset: page.offset },
      );
      return { rows: rows as unknown as WebhookLogRow[], total };
    },

    async enqueue(eventName, payload, unit) {
      // The webhooks are read on a fork of their own: a read on the unit's EntityManager could
      // flush its pending change early, outside the transaction of its commit.
      const hooks = await subscribersOf(eventName);
      if (hooks.length === 0) return 0;
      const target = unit?.em ?? em();
      const now = Date.now();
      for (const hook of hooks) {
        const row: DeliveryRow = {
          id: newId(),
          webhookId: hook.id,
          eventName,
          body: deliveryBody({ webhookId: hook.id, eventName, eventDescription: hook.eventDescription, payload }),
          state: 'pending',
          attempts: 0,
          nextAttemptAt: now,
          leaseUntil: null,
          leaseOwner: null,
          lastError: null,
          createdAt: now,
          updatedAt: now,
        };
        target.create(WebhookDeliveryEntity, row as never);
      }
      if (unit) unit.afterCommit(() => o.worker.wake());
      else {
        await target.flush();
        o.worker.wake();
      }
      return hooks.length;
    },

    async testEndpoint(input) {
      checkEventName(input.event_name, o.events);
      checkEndpoint(input.endpoint, policy);
      const headers = checkHeaders(input.headers);
      const body = deliveryBody({
        webhookId: '',
        eventName: input.event_name,
        eventDescription: input.event_description ?? null,
        payload: { user: SAMPLE_USER, auth_recipe: 'basic_auth' },
      });
      try {
        const answer = await o.outbound.fetch(input.endpoint, {
          method: 'POST',
          headers: {
            ...headers,
            'content-type': 'application/json',
            [SIGNATURE_HEADER]: signature(body, o.clientSecret()),
            [DELIVERY_ID_HEADER]: 'test',
          },
          body,
          timeoutMs: o.timeoutMs,
          maxBytes: 64 * 1024,
        });
        return { http_status: answer.status, response: answer.body.slice(0, o.responseExcerptChars) };
      } catch (err) {
        const outbound = findOutboundError(err);
        if (!outbound) throw err;
        if (outbound.code === 'address_refused' || outbound.code === 'invalid_request') {
          throw invalidArgument(`invalid endpoint: ${outbound.message}`);
        }
        throw failedPrecondition(`the endpoint did not answer: ${outbound.message}`);
      }
    },

    async flush() {
      o.worker.wake();
      await o.worker.idle();
    },

    async deliveries(webhookId) {
      return (await em().find(WebhookDeliveryEntity, (webhookId ? { webhookId } : {}) as never, {
        orderBy: { createdAt: 'asc', id: 'asc' } as never,
      })) as unknown as DeliveryRow[];
    },
  };
}
