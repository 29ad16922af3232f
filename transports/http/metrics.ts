/**
 * Prometheus metrics (SPEC.md: `/metrics` only on --metrics-host:--metrics-port, never on the main
 * port). One registry per kernel: no module-level state, so embedded kernels do not collide.
 */
import Fastify, { type FastifyInstance } from 'fastify';
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

  instrument(app: FastifyInstance): void {
    // prom-client hashes and validates the label object on every call; the label sets are few
    // (method x route x status), so each one's child series is looked up once and kept.
    const counters = new Map<string, { inc(): void }>();
    const timers = new Map<string, { observe(v: number): void }>();
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      const timerKey = `${request.method} ${route}`;
      const counterKey = `${timerKey} ${reply.statusCode}`;
      let counter = counters.get(counterKey);
      if (!counter) {
        counter = this.requests.labels(request.method, route, String(reply.statusCode));
        counters.set(counterKey, counter);
      }
      let timer = timers.get(timerKey);
      if (!timer) {
        timer = this.duration.labels(request.method, route);
        timers.set(timerKey, timer);
      }
      counter.inc();
      timer.observe(reply.elapsedTime / 1000);
      done();
    });
  }

  /** The dedicated metrics listener. */
  async listen(host: string, port: number): Promise<FastifyInstance> {
    const server = Fastify({ logger: false });
    server.get('/metrics', async (_req, reply) => reply.header('content-type', this.registry.contentType).send(await this.registry.metrics()));
    await server.listen({ host, port });
    return server;
  }
}
