/**
 * Prometheus metrics (SPEC.md: `/metrics` only on --metrics-host:--metrics-port, never on the main
 * port). One registry per kernel: no module-level state, so embedded kernels do not collide.
 */
import Fastify, { type FastifyInstance, type FastifyRequest, type onSendHookHandler } from 'fastify';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { EventLoopDelay } from './event-loop-delay.js';
import type { RequestStep } from './request-steps.js';
import { RequestSeriesSet, type RequestSeries } from './request-series.js';

/** The request's start, set by the step `instrument` returns (a request decoration, so every request has the same shape). */
const STARTED_AT = 'latchkeyStartedAt';
type Stamped = FastifyRequest & { [STARTED_AT]: number };

const secondsSince = (request: FastifyRequest): number => {
  const started = (request as Stamped)[STARTED_AT];
  return started > 0 ? (performance.now() - started) / 1000 : 0;
};

/**
 * How often the event-loop delay histogram samples (prom-client's `eventLoopMonitoringPrecision`,
 * behind the `nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds` gauges). Its default
 * is 10 ms: a timer that wakes the event loop 100 times a second, busy or idle. Under a login
 * load the extra wake-ups split the work the loop would have done in one turn into more turns,
 * each starting with its code and data out of the caches the password hashes stream through:
 * bench/profiling/login-cpu.ts AGAINST a build with this at 100 ms, 6 interleaved rounds of 6 s
 * (2-core AMD EPYC VM, session 40): the main thread slept 0.80 against 1.22 times and cost 0.67
 * against 0.81 ms per login, and logins reached 92.3% against 89.8% of the raw hash ceiling.
 * At 100 ms a 15 s scrape interval still holds ~150 samples; each one is as exact as before
 * (the delay of a timer's firing, in nanoseconds), there are fewer of them. The gauges are
 * event-loop-delay.ts's, which subtract the interval (prom-client's report it).
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

/**
 * prom-client's own delay histogram cannot be left out of its defaults; at the longest interval
 * Node takes (2^31 - 1 ms, ~25 days) its timer never fires. Its gauges are replaced.
 */
const PROM_CLIENT_SAMPLE_MS = 2 ** 31 - 1;

export class HttpMetrics {
  /** Process metrics (prom-client's defaults). */
  readonly registry = new Registry();
  /** The HTTP request counter and duration histogram. */
  readonly requests = new RequestSeriesSet();

  private readonly eventLoopDelay: EventLoopDelay | undefined;

  constructor(defaultMetrics: boolean) {
    if (!defaultMetrics) return;
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: PROM_CLIENT_SAMPLE_MS });
    this.eventLoopDelay = new EventLoopDelay(this.registry, EVENT_LOOP_SAMPLE_MS);
  }

  /**
   * Counts and times every request: a start stamp (the returned step, which the scope's onRequest
   * hook runs first: request-steps.ts), and an onSend
   * hook on each route (added as the route is registered) that finds its series once per method,
   * so nothing is looked up or concatenated per request, and `request.routeOptions` (a fresh
   * object on every read) is never built. Why onSend and not onResponse: an onResponse hook makes
   * Fastify add and remove two listeners on every response (with a closure), ~2.5% of a small
   * request's server CPU in a profile; the time measured ends when the response is handed to the
   * socket, not when the socket has written it. Requests that match no route are counted by
   * `countUnmatched`.
   */
  instrument(app: FastifyInstance): RequestStep {
    app.decorateRequest(STARTED_AT, 0);
    app.addHook('onRoute', (route) => {
      const hook = this.routeHook(route.url ?? route.path);
      route.onSend =
        route.onSend === undefined ? [hook] : [...(Array.isArray(route.onSend) ? route.onSend : [route.onSend]), hook];
    });
    return (request) => {
      (request as Stamped)[STARTED_AT] = performance.now();
      return true;
    };
  }

  /** Records one finished request that matched no route (the not-found handler calls it). */
  countUnmatched(request: FastifyRequest, statusCode: number): void {
    this.requests.series(request.method, 'unmatched').record(statusCode, secondsSince(request));
  }

  /** The Prometheus text of every metric. */
  async render(): Promise<string> {
    this.eventLoopDelay?.update();
    return (await this.registry.metrics()) + '\n' + this.requests.render();
  }

  private routeHook(url: string): onSendHookHandler {
    // A route may answer several methods (the 405 route): one series per method, found once.
    const byMethod = new Map<string, RequestSeries>();
    return (request, reply, payload, done) => {
      let series = byMethod.get(request.method);
      if (series === undefined) {
        series = this.requests.series(request.method, url);
        byMethod.set(request.method, series);
      }
      series.record(reply.statusCode, secondsSince(request));
      done(null, payload);
    };
  }

  /** The dedicated metrics listener. */
  async listen(host: string, port: number): Promise<FastifyInstance> {
    const server = Fastify({ logger: false });
    server.get('/metrics', async (_req, reply) =>
      reply.header('content-type', this.registry.contentType).send(await this.render()),
    );
    await server.listen({ host, port });
    return server;
  }
}
