/**
 * Responses finished in one turn of the event loop are written together at the end of that
 * turn, not one by one as each handler finishes.
 *
 * Why: when a client on the same host (a sidecar, an app server, the bench's load generator) is
 * waiting for an answer, the kernel wakes it from inside our `writev`. It delivers the loopback
 * segment and signals the client's CPU there, on our thread. Under load the server
 * reads many requests in one turn. Written as each one finished, ~90 µs apart, every response
 * met a client that had gone back to sleep, and paid a wake-up each time. With FGA checks at 1M tuples,
 * `writev` was 35% of the server's time and the wake-up path (`sock_def_readable`, perf) 12%.
 * Written back to back at the end of the turn, the first response wakes the client and the
 * others find it awake. Server CPU per check fell from ~80-100 to ~50-60 µs in A/B runs on the
 * same data (docs/performance.md). uWebSockets corks its writes per loop
 * iteration for the same reason.
 *
 * What it costs: a response waits for the rest of its turn's work. Within a busy turn, when a
 * response is held and the oldest held one has waited MAX_HOLD_MS, or MAX_HELD are held,
 * everything held is written at once. A synchronous stretch of work cannot be cut short, so a
 * held response also waits for the handler running after it. At low load a turn holds one
 * response and the wait is one `setImmediate`.
 * The hook only delays Fastify's last step (onSend → write); headers, status and body are final
 * when a response is held. Hijacked replies (streams written by hand) skip onSend and are never
 * held.
 */
import type { FastifyInstance } from 'fastify';

/** How long the oldest held response may wait: the next response held after that sends everything. */
export const MAX_HOLD_MS = 1;
/** The most responses held at once. */
export const MAX_HELD = 64;

/** The batch of one turn: `hold` keeps a write back until the turn ends or a bound is reached. */
export class HeldResponses {
  private held: (() => void)[] = [];
  private firstHeldAt = 0;
  /** A `setImmediate` is pending that will write whatever is held then. */
  private scheduled = false;
  private readonly endOfTurn = () => {
    this.scheduled = false;
    this.writeAll();
  };

  constructor(
    /** Told of a write that threw; the writes after it still run. */
    private readonly onError: (err: unknown) => void,
    private readonly now: () => number = performance.now.bind(performance),
    private readonly maxHoldMs = MAX_HOLD_MS,
    private readonly maxHeld = MAX_HELD,
  ) {}

  get size(): number {
    return this.held.length;
  }

  /** Holds `write` until the end of this turn, or writes everything held now when a bound is reached. */
  hold(write: () => void): void {
    const now = this.now();
    if (this.held.length === 0) this.firstHeldAt = now;
    this.held.push(write);
    if (this.held.length >= this.maxHeld || now - this.firstHeldAt >= this.maxHoldMs) {
      this.writeAll();
    } else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.endOfTurn);
    }
  }

  /** Writes everything held, oldest first. A write that throws does not keep the others back. */
  writeAll(): void {
    const writes = this.held;
    if (writes.length === 0) return;
    this.held = [];
    for (const write of writes) {
      try {
        write();
      } catch (err) {
        this.onError(err);
      }
    }
  }
}

/**
 * Installs the batching on `app`: every response of the app (and its plugins) goes through it.
 * A write that throws (a header Node refuses, say) is handed back to Fastify as the hook's error,
 * as Fastify's own hook runner does when the same throw happens inside the hook: the client gets
 * Fastify's error answer, not a connection left waiting.
 */
export function holdResponsesPerTurn(app: FastifyInstance): HeldResponses {
  const batch = new HeldResponses((err) => app.log.error({ err }, 'writing a held response failed'));
  app.addHook('onSend', (_request, _reply, payload, done) => {
    batch.hold(() => {
      try {
        done(null, payload);
      } catch (err) {
        done(err as Error);
      }
    });
  });
  return batch;
}
