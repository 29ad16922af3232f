/**
 * The server plugin: owns the flags of the process itself and their startup rules. Every build
 * includes it.
 */
import type { Config } from '../../core/config.js';
import { definePlugin } from '../../core/plugin.js';
import { serverFlags } from './flags.js';
import { checkBaseUrl } from './url.js';
import { parseTrustedProxies } from '../../core/trusted-proxies.js';

function checkDatabase(config: Config): string | undefined {
  if (!config.has('database-type'))
    return '--database-type is required (sqlite, libsql, postgres, mysql, mariadb or mongodb)';
  const type = config.string('database-type');
  if (config.has('database-url') || type === 'sqlite') return undefined;
  if (!config.has('database-host')) {
    return '--database-url is required (or --database-host, --database-port, --database-name, --database-username, --database-password)';
  }
  return undefined;
}

function checkPorts(config: Config): string | undefined {
  const http = config.number('http-port', 8080);
  const metrics = config.number('metrics-port', 8081);
  const grpc = config.number('grpc-port', 9091);
  if (http === metrics) return `--http-port and --metrics-port must differ (both are ${http})`;
  if (grpc !== 0 && grpc === http) return `--http-port and --grpc-port must differ (both are ${http})`;
  if (grpc !== 0 && grpc === metrics) return `--grpc-port and --metrics-port must differ (both are ${grpc})`;
  return undefined;
}

/** TLS needs both the certificate and its key; one alone is a mistake, not plaintext. */
function checkGrpcTls(config: Config): string | undefined {
  if (config.has('grpc-tls-cert') === config.has('grpc-tls-key')) return undefined;
  return '--grpc-tls-cert and --grpc-tls-key must be given together';
}

export const serverPlugin = definePlugin({
  name: 'server',
  description: 'The process: listeners, database, memory store, CORS, proxies, GraphQL options.',
  flags: serverFlags,
  validateConfig: (config) =>
    checkDatabase(config) ??
    checkBaseUrl(config.string('url')) ??
    (config.has('client-id') ? undefined : '--client-id is required') ??
    (config.has('client-secret') ? undefined : '--client-secret is required') ??
    checkPorts(config) ??
    checkGrpcTls(config) ??
    checkTrustedProxies(config.list('trusted-proxies')),
});

/**
 * Every --trusted-proxies entry must be an IP address or CIDR range: HTTP (Fastify's proxy-addr)
 * also took names such as `loopback`, which the gRPC transport could not read, so one process
 * would trust different peers per transport and fail to start gRPC after HTTP was serving.
 * Refused at startup instead.
 */
function checkTrustedProxies(list: readonly string[]): string | undefined {
  for (const entry of list) {
    try {
      parseTrustedProxies([entry]);
    } catch {
      return `--trusted-proxies: ${JSON.stringify(entry)} is not an IP address or CIDR range`;
    }
  }
  return undefined;
}
