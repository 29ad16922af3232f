/**
 * `createServer`: a kernel from a plugin list and a configuration, served over HTTP (REST,
 * GraphQL, raw routes), gRPC and the metrics listener. The CLI, the examples and the black-box
 * tests all start Latchkey through this function.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Config } from '../../core/config.js';
import { parseTrustedProxies } from '../../core/trusted-proxies.js';
import { Kernel } from '../../core/kernel.js';
import type { Logger } from '../../core/logger.js';
import type { AnyPlugin } from '../../core/plugin.js';
import { openMemoryStore, openStorage } from '../../storage/index.js';
import { startGrpcServer } from '../grpc/server.js';
import { mountKernel } from './app.js';
import { clientErrorHandler, frameworkErrors, rememberArrivingRequests } from './client-errors.js';
import { limitConnectionsPerAddress } from './connection-limits.js';
import { holdResponsesPerTurn } from './held-responses.js';
import { HttpMetrics } from './metrics.js';
import { holdContinueForChecks } from './oversized-bodies.js';
import { rateLimiterOf } from './rate-limit.js';

export interface CreateServerOptions {
  plugins: readonly AnyPlugin[];
  config: Config;
  /** Pino-compatible logger options or `false`; defaults to --log-level. */
  logger?: boolean | { level: string };
  /** How long a client may take to send a whole request (headers and body); tests shorten it. */
  requestTimeoutMs?: number;
}

/**
 * A request, body included, must arrive within this time. Fastify turns Node's request timeout
 * off, and the headers timeout alone left a body trickled a byte at a time holding its
 * connection forever (slowloris on the body). Node checks open requests every
 * REQUEST_TIMEOUT_CHECK_MS, so a slow one is cut between the timeout and one interval later.
 */
export const REQUEST_TIMEOUT_MS = 30_000;
const REQUEST_TIMEOUT_CHECK_MS = 1_000;

export interface ListenResult {
  /** The HTTP address actually bound, e.g. http://127.0.0.1:8080. */
  httpAddress: string;
  httpPort: number;
  grpcPort: number | null;
  metricsPort: number | null;
}

export interface LatchkeyServer {
  readonly app: FastifyInstance;
  readonly kernel: Kernel;
  listen(): Promise<ListenResult>;
  close(): Promise<void>;
}

/** Fastify's trustProxy takes the CIDR list; no list means X-Forwarded-For is ignored. */
function trustProxy(config: Config): string[] | false {
  const list = config.list('trusted-proxies');
  return list.length > 0 ? list : false;
}

export async function createServer(options: CreateServerOptions): Promise<LatchkeyServer> {
  const { config } = options;
  const level = config.string('log-level', 'info');
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const loggerOptions = options.logger ?? (level === 'silent' ? false : { level });
  const app = Fastify({
    requestTimeout,
    http: {
      requestTimeout,
      headersTimeout: Math.min(60_000, requestTimeout),
      connectionsCheckingInterval: Math.min(REQUEST_TIMEOUT_CHECK_MS, requestTimeout),
    },
    logger: loggerOptions,
    trustProxy: trustProxy(config),
    bodyLimit: config.number('body-limit', 1_048_576),
    // Per-request log lines cost throughput; errors are still logged by the error handler.
    logController: new LogController({ disableRequestLogging: true }),
    // With request logging off nothing logs per request through `request.log`, so each request
    // gets the server's logger itself rather than a pino child made for it (Fastify's default
    // whenever a logger is configured, i.e. at the default --log-level info). Only then: without
    // a logger Fastify skips the factory, and a factory of ours would make it call and validate
    // one per request.
    ...(loggerOptions === false ? {} : { childLoggerFactory: (parent: FastifyBaseLogger) => parent }),
    return503OnClosing: true,
    // Mounting every operation on every transport is one plugin; on a starved or instrumented
    // host (a 2-core machine under a test run, a server counted by valgrind) it can pass avvio's
    // 10 s default, and a start that is merely slow should not fail.
    pluginTimeout: 120_000,
    clientErrorHandler,
    frameworkErrors,
  });
  const logger: Logger = app.log;
  limitConnectionsPerAddress(
    app.server,
    config.number('connection-limit-per-ip', 100),
    parseTrustedProxies(config.list('trusted-proxies')),
  );
  holdResponsesPerTurn(app);
  holdContinueForChecks(app.server);
  rememberArrivingRequests(app.server);
  const kernel = await Kernel.boot({ plugins: options.plugins, config, openStorage, openMemoryStore, logger });
  const metrics = new HttpMetrics(true, kernel.metrics);
  metrics.countOn(app.server);
  const rateLimiter = rateLimiterOf(kernel);
  try {
    await app.register(async (scope) => mountKernel(scope, { kernel, metrics, rateLimiter }));
    await app.ready();
  } catch (err) {
    await kernel.close();
    throw err;
  }

  let grpc: { port: number; close(): Promise<void> } | null = null;
  let metricsServer: FastifyInstance | null = null;
  let closed = false;

  return {
    app,
    kernel,
    async listen() {
      const host = config.string('host', '0.0.0.0');
      await app.listen({ host, port: config.number('http-port', 8080) });
      const addr = app.server.address();
      const httpPort = typeof addr === 'object' && addr ? addr.port : config.number('http-port', 8080);
      const grpcPort = config.number('grpc-port', 9091);
      // --grpc-port 0 turns the gRPC server off (and with it REST).
      if (grpcPort !== 0)
        grpc = await startGrpcServer(kernel, [...kernel.operations.values()], { host, port: grpcPort, rateLimiter });
      metricsServer = await metrics.listen(
        config.string('metrics-host', '127.0.0.1'),
        config.number('metrics-port', 8081),
      );
      const maddr = metricsServer?.server.address();
      return {
        httpAddress: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${httpPort}`,
        httpPort,
        grpcPort: grpc ? grpc.port : null,
        metricsPort: typeof maddr === 'object' && maddr ? maddr.port : null,
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      if (kernel.hasService('health')) kernel.service('health').drain();
      await grpc?.close();
      await metricsServer?.close();
      await app.close();
      await kernel.close();
    },
  };
}
