/**
 * Prometheus metrics (SPEC.md: `/metrics` only on --metrics-host:--metrics-port, never on the main
 * port). One registry per kernel: no module-level state, so embedded kernels do not collide.
 */
import Fastify, { type FastifyInstance, type onResponseHookHandler } from 'fastify';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { RequestSeriesSet, type RequestSeries } from './request-series.js';

export class HttpMetrics {
  /** Process metrics (prom-client's defaults). */
  readonly registry = new Registry();
  /** The HTTP request counter and duration histogram. */
  readonly requests = new RequestSeriesSet();

  constructor(defaultMetrics: boolean) {
    if (defaultMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Counts and times every request. Each route gets an onResponse hook of its own (added as the
   * route is registered) that finds its series once per method: nothing is looked up or
   * concatenated per request, and `request.routeOptions` (a fresh object on every read) is never
   * built. Requests that match no route are counted by `countUnmatched`.
   */
  instrument(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      const hook = this.routeHook(route.url ?? route.path);
      route.onResponse = route.onResponse === undefined ? [hook] : [...(Array.isArray(route.onResponse) ? route.onResponse : [route.onResponse]), hook];
    });
  }

  /** Records one finished request that matched no route (the not-found handler calls it). */
  countUnmatched(method: string, statusCode: number, elapsedMs: number): void {
    this.requests.series(method, 'unmatched').record(statusCode, elapsedMs / 1000);
  }

  /** The Prometheus text of every metric. */
  async render(): Promise<string> {
    return (await this.registry.metrics()) + '\n' + this.requests.render();
  }

  private routeHook(url: string): onResponseHookHandler {
    // A route may answer several methods (the 405 route): one series per method, found once.
    const byMethod = new Map<string, RequestSeries>();
    return (request, reply, done) => {
      let series = byMethod.get(request.method);
      if (series === undefined) {
        series = this.requests.series(request.method, url);
        byMethod.set(request.method, series);
      }
      series.record(reply.statusCode, reply.elapsedTime / 1000);
      done();
    };
  }

  /** The dedicated metrics listener. */
  async listen(host: string, port: number): Promise<FastifyInstance> {
    const server = Fastify({ logger: false });
    server.get('/metrics', async (_req, reply) => reply.header('content-type', this.registry.contentType).send(await this.render()));
    await server.listen({ host, port });
    return server;
  }
}
