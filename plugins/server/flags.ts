/** Flags of the server itself: listeners, database, memory store, CORS, proxies, GraphQL. */
import type { FlagDeclaration } from '../../core/config.js';
import { DATABASE_TYPES } from '../../core/storage.js';

export const serverFlags: FlagDeclaration[] = [
  { name: 'env', type: 'string', description: 'Environment name (informational).', default: 'production' },
  {
    name: 'url',
    type: 'string',
    required: true,
    description: 'Absolute http(s) base URL of this service; the issuer and the source of every link.',
  },
  { name: 'host', type: 'string', default: '0.0.0.0', description: 'Bind host of the HTTP listener.' },
  { name: 'http-port', type: 'number', default: 8080, description: 'HTTP port.' },
  {
    name: 'grpc-port',
    type: 'number',
    default: 9091,
    description: 'gRPC port; 0 disables the gRPC server (and with it the REST surface under /v1).',
  },
  {
    name: 'grpc-tls-cert',
    type: 'string',
    description:
      'Certificate chain of the gRPC listener (PEM text or a file path); with --grpc-tls-key it serves TLS, otherwise plaintext.',
  },
  {
    name: 'grpc-tls-key',
    type: 'string',
    secret: true,
    description: 'Private key of --grpc-tls-cert (PEM text or a file path).',
  },
  {
    name: 'metrics-host',
    type: 'string',
    default: '127.0.0.1',
    description: 'Bind host of the dedicated metrics listener.',
  },
  {
    name: 'metrics-port',
    type: 'number',
    default: 8081,
    description: 'Port of the dedicated metrics listener; must differ from --http-port and --grpc-port.',
  },
  {
    name: 'log-level',
    type: 'string',
    default: 'info',
    choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    description: 'Log level.',
  },
  {
    name: 'trusted-proxies',
    type: 'list',
    default: [],
    description: 'Comma-separated CIDRs whose X-Forwarded-For is trusted; default none.',
  },
  {
    name: 'allowed-origins',
    type: 'list',
    default: ['*'],
    description:
      "Comma-separated origins allowed by CORS, and where the built-in client may redirect; default * (CORS for any origin; cookies and redirects only within the service's own site).",
  },
  {
    name: 'database-type',
    type: 'string',
    required: true,
    choices: DATABASE_TYPES,
    description: 'Main database type.',
  },
  {
    name: 'database-url',
    type: 'string',
    description: 'Main database connection URL (a file path for sqlite).',
    secret: true,
  },
  { name: 'database-host', type: 'string', description: 'Database host (instead of --database-url).' },
  { name: 'database-port', type: 'number', description: 'Database port (instead of --database-url).' },
  { name: 'database-name', type: 'string', description: 'Database name (instead of --database-url).' },
  { name: 'database-username', type: 'string', description: 'Database user (instead of --database-url).' },
  {
    name: 'database-password',
    type: 'string',
    secret: true,
    description: 'Database password (instead of --database-url).',
  },
  {
    name: 'database-timeout-ms',
    type: 'number',
    default: 2000,
    description:
      'PostgreSQL, MySQL and MariaDB: longest wait for a new connection or for the answer to a query while serving (a free pooled connection is waited for 2.5 times as long, at least 5 s); a request that meets it answers 503 and a connection left without an answer is dropped (schema changes at boot are not limited).',
  },
  {
    name: 'redis-url',
    type: 'string',
    secret: true,
    description:
      'Shared memory store (Redis) for sessions, OTPs, magic links, challenges and counters; without it the store is per node.',
  },
  {
    name: 'memory-store',
    type: 'string',
    default: 'database',
    choices: ['database', 'process'],
    description: 'Memory store backend when --redis-url is not set: the main database (durable) or this process.',
  },
  {
    name: 'rate-limit-per-minute',
    type: 'number',
    default: 600,
    description: 'Global per-client-IP request limit per minute; 0 disables.',
  },
  { name: 'body-limit', type: 'number', default: 1048576, description: 'Maximum request body size in bytes.' },
  {
    name: 'connection-limit-per-ip',
    type: 'number',
    default: 100,
    description:
      'Most HTTP connections one client address holds open at once (its socket address; an IPv6 address counts by its /64; --trusted-proxies addresses are exempt); a connection over it is closed as it opens; 0 disables.',
  },
  { name: 'client-id', type: 'string', required: true, description: 'Client id of the built-in application client.' },
  {
    name: 'client-secret',
    type: 'string',
    required: true,
    secret: true,
    description: 'Client secret of the built-in application client.',
  },
  { name: 'enable-playground', type: 'boolean', default: false, description: 'Serve the GraphQL playground.' },
  {
    name: 'enable-graphql-introspection',
    type: 'boolean',
    default: true,
    description: 'Allow GraphQL schema introspection.',
  },
  {
    name: 'organization-name',
    type: 'string',
    default: 'Latchkey',
    description: 'Organization name shown on hosted pages and mails.',
  },
  { name: 'organization-logo', type: 'string', description: 'Organization logo URL shown on hosted pages.' },
];
