/**
 * The event bus: domain events that leave the process (webhooks, audit) are emitted here by the
 * plugin that owns them and consumed by whoever subscribes. Handlers run after the emitting
 * operation; a failing handler is logged, never propagated to the caller.
 */
export interface DomainEvent<P = Record<string, unknown>> {
  name: string;
  payload: P;
  at: number;
}

export type EventHandler = (event: DomainEvent) => void | Promise<void>;

export class EventBus {
  private readonly handlers = new Map<string, EventHandler[]>();
  private readonly wildcard: EventHandler[] = [];
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

  emit(name: string, payload: Record<string, unknown>): void {
    const event: DomainEvent = { name, payload, at: Date.now() };
    for (const h of [...(this.handlers.get(name) ?? []), ...this.wildcard]) {
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
