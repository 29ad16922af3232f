/**
 * One error type for every layer. Codes are the gRPC status tokens (`invalid_argument`,
 * `unauthenticated`, ...) that the REST error envelope `{code, message}` carries; `errorStatus`
 * maps each to HTTP, GraphQL and gRPC.
 */
export const ERROR_CODES = [
  'invalid_argument',
  'unauthenticated',
  'permission_denied',
  'not_found',
  'already_exists',
  'failed_precondition',
  'resource_exhausted',
  'unimplemented',
  'method_not_allowed',
  'unavailable',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorStatus {
  http: number;
  /** UPPER_SNAKE token for GraphQL `extensions.code`. */
  graphql: string;
  /** Numeric gRPC status (grpc/status.proto). */
  grpc: number;
}

export const errorStatus: Readonly<Record<ErrorCode, ErrorStatus>> = {
  invalid_argument: { http: 400, graphql: 'INVALID_ARGUMENT', grpc: 3 },
  unauthenticated: { http: 401, graphql: 'UNAUTHENTICATED', grpc: 16 },
  permission_denied: { http: 403, graphql: 'PERMISSION_DENIED', grpc: 7 },
  not_found: { http: 404, graphql: 'NOT_FOUND', grpc: 5 },
  already_exists: { http: 409, graphql: 'ALREADY_EXISTS', grpc: 6 },
  // FGA not enabled is 400 failed_precondition.
  failed_precondition: { http: 400, graphql: 'FAILED_PRECONDITION', grpc: 9 },
  resource_exhausted: { http: 429, graphql: 'RESOURCE_EXHAUSTED', grpc: 8 },
  unimplemented: { http: 501, graphql: 'UNIMPLEMENTED', grpc: 12 },
  method_not_allowed: { http: 405, graphql: 'METHOD_NOT_ALLOWED', grpc: 12 },
  unavailable: { http: 503, graphql: 'UNAVAILABLE', grpc: 14 },
  internal: { http: 500, graphql: 'INTERNAL', grpc: 13 },
};

const grpcToCode = new Map<number, ErrorCode>(
  (Object.entries(errorStatus) as [ErrorCode, ErrorStatus][])
    .filter(([code]) => code !== 'method_not_allowed')
    .map(([code, s]) => [s.grpc, code]),
);

/** The code a gRPC status number stands for (used by clients and the parity test). */
export function codeFromGrpcStatus(status: number): ErrorCode {
  return grpcToCode.get(status) ?? 'internal';
}

export class ServiceError extends Error {
  readonly code: ErrorCode;
  /** Extra headers a transport should send (for example `WWW-Authenticate`). */
  readonly headers?: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message: string, headers?: Record<string, string>) {
    super(message);
    this.name = 'ServiceError';
    this.code = code;
    if (headers) this.headers = headers;
  }

  get status(): ErrorStatus {
    return errorStatus[this.code];
  }
}

export const invalidArgument = (message: string): ServiceError => new ServiceError('invalid_argument', message);
export const unauthenticated = (message = 'unauthorized'): ServiceError => new ServiceError('unauthenticated', message);
export const permissionDenied = (message = 'permission denied'): ServiceError =>
  new ServiceError('permission_denied', message);
export const notFound = (message: string): ServiceError => new ServiceError('not_found', message);
export const failedPrecondition = (message: string): ServiceError => new ServiceError('failed_precondition', message);

/**
 * Turns anything thrown into a ServiceError that is safe to show a client: internal errors keep
 * their detail for the log only (no stack traces or SQL to clients).
 */
export function toServiceError(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  if (isUnreachable(err) || isSqliteBusy(err))
    return new ServiceError('unavailable', 'the service is temporarily unavailable, try again later');
  return new ServiceError('internal', 'internal server error');
}

/**
 * Error codes of the database drivers (pg, mariadb/mysql, node:net) that mean the database could
 * not be reached or dropped the connection, and PostgreSQL's SQLSTATE class 08 (connection
 * exception) and 57P01-57P03 (the server shutting down or starting).
 */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ER_GET_CONNECTION_TIMEOUT',
  'ER_CONNECTION_TIMEOUT',
  'ER_SOCKET_UNEXPECTED_CLOSE',
  'ER_CONNECTION_ALREADY_CLOSED',
  'ER_CMD_CONNECTION_CLOSED',
  'PROTOCOL_CONNECTION_LOST',
  '57P01',
  '57P02',
  '57P03',
]);
/** The same said only in words: pg's connect and query timeouts and lost connection, knex's pool wait. */
const UNREACHABLE_TEXT =
  /timeout expired|Query read timeout|connection terminated|Timeout acquiring a connection|ended unexpectedly/i;

/**
 * True when the error (or an error it wraps) says a store could not be reached: the request
 * failed for a reason outside it, and a client may try again (503), unlike a defect (500).
 */
function isUnreachable(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth > 3) return false;
  const code = String((err as { code?: unknown }).code ?? '');
  if (UNREACHABLE_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  if (err.name === 'KnexTimeoutError' || err.name === 'ConnectionException') return true;
  if (UNREACHABLE_TEXT.test(err.message)) return true;
  return isUnreachable(err.cause, depth + 1);
}

/**
 * True when the error (or an error it wraps) is SQLite's SQLITE_BUSY or one of its extended codes,
 * as libsql reports it and MikroORM passes it on: another connection to the file (another process
 * or node) held the write lock longer than the busy timeout. Nothing was written, and the same
 * request may succeed a moment later (503).
 */
export function isSqliteBusy(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth > 3) return false;
  const code = String((err as { code?: unknown }).code ?? '');
  if (code.startsWith('SQLITE_BUSY') || /database is locked/i.test(err.message)) return true;
  return isSqliteBusy(err.cause, depth + 1);
}
