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
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      this.requests.inc({ method: request.method, route, status: String(reply.statusCode) });
      this.duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
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
