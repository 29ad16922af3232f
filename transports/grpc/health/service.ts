/**
 * The standard health service, `grpc.health.v1.Health` (grpc/doc/health-checking.md), from the
 * proto beside this file. A service is SERVING when the node is ready, by the same rule as
 * `/readyz` (not draining, database answering), NOT_SERVING otherwise; the empty name asks about
 * the server as a whole, and a name the server does not serve is NOT_FOUND on Check and
 * SERVICE_UNKNOWN on Watch, as the document says. Watch sends the status at once, then each
 * change it sees when it looks again (every WATCH_INTERVAL_MS), and ends with NOT_SERVING when the
 * server shuts down.
 */
import { fileURLToPath } from 'node:url';
import {
  status as grpcStatus,
  type Server,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceDefinition,
  type sendUnaryData,
} from '@grpc/grpc-js';
import { loadSync, type PackageDefinition } from '@grpc/proto-loader';
import { LOADER_OPTIONS } from '../load.js';

export const HEALTH_SERVICE = 'grpc.health.v1.Health';
const PROTO_PATH = fileURLToPath(new URL('./health.proto', import.meta.url));

/** How often a Watch looks at the status again. */
export const WATCH_INTERVAL_MS = 5_000;

type ServingStatus = 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';
interface HealthRequest {
  service?: string;
}
interface HealthResponse {
  status: ServingStatus;
}

export interface HealthOptions {
  /** Every service name the server answers for (the empty name is always known). */
  services: readonly string[];
  /** True when the node can serve calls (the `/readyz` rule). */
  ready(): Promise<boolean>;
}

export interface HealthHandle {
  /** Ends every Watch with NOT_SERVING: the server is going away. */
  shutdown(): void;
}

/** The health proto's package definition (reflection describes it beside the generated services). */
export function loadHealthDefinition(): PackageDefinition {
  return loadSync(PROTO_PATH, LOADER_OPTIONS);
}

export function addHealthService(server: Server, definition: PackageDefinition, options: HealthOptions): HealthHandle {
  const service = definition[HEALTH_SERVICE] as ServiceDefinition;
  const known = new Set(['', ...options.services]);
  /** Open Watch calls, each with what stops its timer. */
  const watchers = new Map<ServerWritableStream<HealthRequest, HealthResponse>, () => void>();
  let closing = false;

  async function statusOf(service: string): Promise<ServingStatus> {
    if (!known.has(service)) return 'SERVICE_UNKNOWN';
    if (closing) return 'NOT_SERVING';
    try {
      return (await options.ready()) ? 'SERVING' : 'NOT_SERVING';
    } catch {
      return 'NOT_SERVING';
    }
  }

  function check(call: ServerUnaryCall<HealthRequest, HealthResponse>, callback: sendUnaryData<HealthResponse>): void {
    const service = call.request.service ?? '';
    void statusOf(service).then((status) => {
      if (status === 'SERVICE_UNKNOWN')
        callback({ code: grpcStatus.NOT_FOUND, details: `unknown service ${JSON.stringify(service)}` });
      else callback(null, { status });
    });
  }

  function watch(call: ServerWritableStream<HealthRequest, HealthResponse>): void {
    const service = call.request.service ?? '';
    let last: ServingStatus | undefined;
    let timer: NodeJS.Timeout | undefined;
    const stop = () => {
      clearTimeout(timer);
      watchers.delete(call);
    };
    const look = async () => {
      const status = await statusOf(service);
      if (call.cancelled || !watchers.has(call)) return;
      if (status !== last) {
        last = status;
        call.write({ status });
      }
      timer = setTimeout(() => void look(), WATCH_INTERVAL_MS);
    };
    watchers.set(call, stop);
    call.on('cancelled', stop);
    void look();
  }

  server.addService(service, { Check: check, Watch: watch });
  return {
    shutdown() {
      closing = true;
      for (const [call, stop] of [...watchers]) {
        stop();
        call.write({ status: 'NOT_SERVING' });
        call.end();
      }
    },
  };
}
