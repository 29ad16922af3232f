/**
 * Prometheus metrics (`/metrics` only on --metrics-host:--metrics-port, never on the main
 * port). One registry per kernel: no module-level state, so embedded kernels do not collide.
 */
import Fastify, { type FastifyInstance, type FastifyRequest, type onSendHookHandler } from 'fastify';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { RequestStep } from './request-steps.js';
import { RequestSeriesSet, type RequestSeries } from './request-series.js';

/** The request's start, set by the step `instrument` returns (a request decoration, so every request has the same shape). */
const STARTED_AT = 'latchkeyStartedAt';
/** The metrics that count the request, set by the same step (an answer written by hand finds them there). */
const COUNTED_BY = 'latchkeyCountedBy';
type Stamped = FastifyRequest & { [STARTED_AT]: number; [COUNTED_BY]: HttpMetrics | null };

/** The metrics of each HTTP server, for answers written before any request exists (client-errors.ts). */
const metricsByServer = new WeakMap<object, HttpMetrics>();

const secondsSince = (request: FastifyRequest): number => {
  const started = (request as Stamped)[STARTED_AT];
  return started > 0 ? (performance.now() - started) / 1000 : 0;
};

export class HttpMetrics {
  /**
   * Process metrics: prom-client's defaults, as prom-client documents them (the
   * `nodejs_eventloop_lag_*` gauges included, from its own histogram at its default precision).
   */
  readonly registry = new Registry();
  /** The HTTP request counter and duration histogram. */
  readonly requests = new RequestSeriesSet();

  /** `plugins`: the kernel's registry of plugin metrics (mail and SMS delivery failures, ...). */
  constructor(
    defaultMetrics: boolean,
    private readonly plugins?: Registry,
  ) {
    if (defaultMetrics) collectDefaultMetrics({ register: this.registry });
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
    app.decorateRequest(COUNTED_BY, null);
    app.addHook('onRoute', (route) => {
      const hook = this.routeHook(route.url ?? route.path);
      route.onSend =
        route.onSend === undefined ? [hook] : [...(Array.isArray(route.onSend) ? route.onSend : [route.onSend]), hook];
    });
    return (request) => {
      (request as Stamped)[STARTED_AT] = performance.now();
      (request as Stamped)[COUNTED_BY] = this;
      return true;
    };
  }

  /** Records one finished request that matched no route (the not-found handler calls it). */
  countUnmatched(request: FastifyRequest, statusCode: number): void {
    this.requests.series(request.method, 'unmatched').record(statusCode, secondsSince(request));
  }

  /**
   * Records a request whose answer was written on the socket by hand (reply.hijack), which the
   * onSend hook never sees: a 413 answered before the body is read (answer-then-close.ts). Rare,
   * so the series is found per call.
   */
  countWrittenByHand(request: FastifyRequest, statusCode: number): void {
    const route = request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched');
    this.requests.series(request.method, route).record(statusCode, secondsSince(request));
  }

  /**
   * Records an answer written before any route ran: Node's HTTP parser stage (a malformed
   * request, headers too large, a request timeout: route `unparsed`, the method of the request
   * line when one was read) or Fastify's router (a URL that does not decode: route `unmatched`).
   */
  countUnrouted(method: string, route: 'unparsed' | 'unmatched', statusCode: number): void {
    this.requests.series(method, route).record(statusCode, 0);
  }

  /** Makes this the metrics that count answers written on `server` before any route ran. */
  countOn(server: object): void {
    metricsByServer.set(server, this);
  }

  /** The Prometheus text of every metric. */
  async render(): Promise<string> {
    const own = (await this.plugins?.metrics()) ?? '';
    return (await this.registry.metrics()) + '\n' + (own ? own + '\n' : '') + this.requests.render();
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

/** Counts a request answered by hand (reply.hijack) by the metrics that stamped it, if any. */
export function countWrittenByHand(request: FastifyRequest, statusCode: number): void {
  (request as Stamped)[COUNTED_BY]?.countWrittenByHand(request, statusCode);
}

/** Counts an answer written on `server` before any route ran, by the metrics counting there. */
export function countUnrouted(
  server: object,
  method: string,
  route: 'unparsed' | 'unmatched',
  statusCode: number,
): void {
  metricsByServer.get(server)?.countUnrouted(method, route, statusCode);
}
