/**
 * Prometheus metrics (SPEC.md: `/metrics` only on --metrics-host:--metrics-port, never on the main
 * port). One registry per kernel: no module-level state, so embedded kernels do not collide.
 */
import Fastify, { type FastifyInstance, type onResponseHookHandler } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class HttpMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly duration: Histogram<'method' | 'route'>;

  constructor(defaultMetrics: boolean) {
    this.requests = new Counter({
      name: 'latchkey_http_requests_total',
      help: 'HTTP requests by method, route and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: 'latchkey_http_request_duration_seconds',
      help: 'HTTP request duration by method and route.',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      registers: [this.registry],
    });
    if (defaultMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Counts and times every request. Each route gets an onResponse hook of its own (added as the
   * route is registered), closing over its label values and its histogram series: nothing is
   * looked up or concatenated per request, and `request.routeOptions` (a fresh object on every
   * read) is never built. Requests that match no route are counted by `countUnmatched`.
   */
  instrument(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      const hook = this.routeHook(route.url ?? route.path);
      route.onResponse = route.onResponse === undefined ? [hook] : [...(Array.isArray(route.onResponse) ? route.onResponse : [route.onResponse]), hook];
    });
  }

  /** Records one finished request that matched no route (the not-found handler calls it). */
  countUnmatched(method: string, statusCode: number, elapsedMs: number): void {
    this.requests.labels(method, 'unmatched', String(statusCode)).inc();
    this.duration.labels(method, 'unmatched').observe(elapsedMs / 1000);
  }

  private routeHook(url: string): onResponseHookHandler {
    // Series per method (a route may answer several) and status; both sets are tiny.
    const timers = new Map<string, { observe(v: number): void }>();
    const counters = new Map<string, Map<number, { inc(): void }>>();
    return (request, reply, done) => {
      const method = request.method;
      let timer = timers.get(method);
      if (timer === undefined) {
        timer = this.duration.labels(method, url);
        timers.set(method, timer);
      }
      let byStatus = counters.get(method);
      if (byStatus === undefined) {
        byStatus = new Map();
        counters.set(method, byStatus);
      }
      const status = reply.statusCode;
      let counter = byStatus.get(status);
      if (counter === undefined) {
        counter = this.requests.labels(method, url, String(status));
        byStatus.set(status, counter);
      }
      counter.inc();
      timer.observe(reply.elapsedTime / 1000);
      done();
    };
  }

  /** The dedicated metrics listener. */
  async listen(host: string, port: number): Promise<FastifyInstance> {
    const server = Fastify({ logger: false });
    server.get('/metrics', async (_req, reply) => reply.header('content-type', this.registry.contentType).send(await this.registry.metrics()));
    await server.listen({ host, port });
    return server;
  }
}
