/**
 * The event bus: domain events that leave the process (webhooks, audit) are emitted here by the
 * plugin that owns them and consumed by whoever subscribes. Handlers run after the emitting
 * operation; a failing handler is logged, never propagated to the caller.
 *
 * Outbox writers (`addWriter`: the webhook outbox) are the subscribers whose work must be as
 * durable as the change itself. An emitter holding the unit of work of its change calls
 * `emitWithin`: the writers add their rows to that unit, awaited, so its one commit stores the
 * change and the rows together (a writer's failure fails the unit, nothing is stored); the other
 * handlers run once it has committed. A plain `emit` runs the writers like handlers, each
 * writing its rows at once, after the emitter's own commit.
 */
import type { UnitOfWork } from './unit-of-work.js';

export interface DomainEvent<P = Record<string, unknown>> {
  name: string;
  payload: P;
  at: number;
}

export type EventHandler = (event: DomainEvent) => void | Promise<void>;

/** Writes an event's durable rows: into `unit` when given (not flushed), else at once. */
export type EventWriter = (event: DomainEvent, unit: UnitOfWork | undefined) => Promise<void>;

export class EventBus {
  private readonly handlers = new Map<string, EventHandler[]>();
  private readonly wildcard: EventHandler[] = [];
  private readonly writers = new Map<string, EventWriter[]>();
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly onError: (err: unknown, event: DomainEvent) => void = () => {}) {}

  /** Subscribe to one event name, or `*` for all. Returns an unsubscribe function. */
  on(name: string, handler: EventHandler): () => void {
    const list = name === '*' ? this.wildcard : (this.handlers.get(name) ?? []);
    if (name !== '*') this.handlers.set(name, list);
    list.push(handler);
    return () => {
      const i = list.indexOf(handler);
      if (i >= 0) list.splice(i, 1);
    };
  }

  /** Registers an outbox writer for one event name (at setup). */
  addWriter(name: string, writer: EventWriter): void {
    const list = this.writers.get(name) ?? [];
    list.push(writer);
    this.writers.set(name, list);
  }

  emit(name: string, payload: Record<string, unknown>): void {
    const event: DomainEvent = { name, payload, at: Date.now() };
    const writers = (this.writers.get(name) ?? []).map(
      (w): EventHandler =>
        (e) =>
          w(e, undefined),
    );
    this.dispatch(event, writers);
  }

  /**
   * Emits inside the unit of work of the change: the writers' rows join it now (a writer's
   * failure rejects, and the caller's unit must then not commit); the handlers run after its
   * commit, and not at all when it fails.
   */
  async emitWithin(unit: UnitOfWork, name: string, payload: Record<string, unknown>): Promise<void> {
    const event: DomainEvent = { name, payload, at: Date.now() };
    for (const w of this.writers.get(name) ?? []) await w(event, unit);
    unit.afterCommit(() => this.dispatch(event, []));
  }

  private dispatch(event: DomainEvent, extra: EventHandler[]): void {
    const name = event.name;
    for (const h of [...extra, ...(this.handlers.get(name) ?? []), ...this.wildcard]) {
      const p = Promise.resolve()
        .then(() => h(event))
        .catch((err: unknown) => this.onError(err, event))
        .finally(() => this.pending.delete(p));
      this.pending.add(p);
    }
  }

  /** Waits for handlers started so far (tests, graceful shutdown). */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}
