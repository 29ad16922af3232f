/**
 * Starts a real Latchkey server in this process for black-box tests: HTTP on 127.0.0.1 with
 * `--url http://localhost:<port>` (browsers need localhost), gRPC and metrics on their own free
 * ports, SQLite in a temp file unless a database target is given.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withDefaults, type FlagValue } from '../../core/config.js';
import { Kernel } from '../../core/kernel.js';
import type { AnyPlugin } from '../../core/plugin.js';
import { defaultPlugins } from '../../plugins/default.js';
import { createServer, type LatchkeyServer } from '../../transports/http/server.js';
import type { DbTarget } from './databases.js';
import { freePort } from './ports.js';

export const TEST_ADMIN_SECRET = 'test-admin-secret';
export const TEST_CLIENT_ID = 'test-client';
export const TEST_CLIENT_SECRET = 'test-client-secret';

export interface TestServer {
  /** The service's base URL (`--url`), e.g. http://localhost:41234 */
  url: string;
  /** host:port of the gRPC server. */
  grpcAddress: string;
  metricsUrl: string;
  kernel: Kernel;
  close(): Promise<void>;
}

export interface TestServerOptions {
  plugins?: readonly AnyPlugin[];
  flags?: Record<string, FlagValue | undefined>;
  database?: DbTarget;
  /** createServer's requestTimeoutMs. */
  requestTimeoutMs?: number;
}

/** Attempts with fresh ports when one was taken between being found free and being listened on. */
const PORT_ATTEMPTS = 5;

/**
 * A port found free can be taken before the server listens on it: tap runs test files in
 * parallel processes, and any of them (or an outgoing connection's ephemeral port) may get it
 * first. That failed a CI run with EADDRINUSE on the gRPC port; such a start is retried with new
 * ports, anything else fails at once.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnFreePorts(options);
    } catch (err) {
      if (attempt >= PORT_ATTEMPTS || !/EADDRINUSE/.test(String((err as Error).message))) throw err;
    }
  }
}

async function startOnFreePorts(options: TestServerOptions): Promise<TestServer> {
  const [httpPort, grpcPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-test-'));
  const url = `http://localhost:${httpPort}`;
  const values: Record<string, FlagValue | undefined> = {
    'database-type': 'sqlite',
    'database-url': join(dir, 'test.db'),
    'memory-store': 'process',
    url,
    host: '127.0.0.1',
    'http-port': httpPort,
    'grpc-port': grpcPort,
    'metrics-port': metricsPort,
    'admin-secret': TEST_ADMIN_SECRET,
    'client-id': TEST_CLIENT_ID,
    'client-secret': TEST_CLIENT_SECRET,
    'jwt-type': 'HS256',
    'jwt-secret': 'test-jwt-secret-test-jwt-secret-0123456789',
    'log-level': 'silent',
    'rate-limit-per-minute': 100000,
    ...(options.database?.flags ?? {}),
    ...(options.flags ?? {}),
  };
  const plugins = options.plugins ?? defaultPlugins;
  const config = withDefaults(Kernel.flagsOf(plugins), values);
  let server: LatchkeyServer | undefined;
  try {
    server = await createServer({
      plugins,
      config,
      logger: false,
      ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    });
    await server.listen();
  } catch (err) {
    // A start that failed at boot or at listen leaves neither a server nor its folder behind.
    await server?.close();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const started = server;
  return {
    url,
    grpcAddress: `127.0.0.1:${grpcPort}`,
    metricsUrl: `http://127.0.0.1:${metricsPort}`,
    kernel: started.kernel,
    async close() {
      await started.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
