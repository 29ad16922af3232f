/**
 * SCIM errors (RFC 7644 §3.12): `{schemas: [Error], status, scimType?, detail}` with the HTTP
 * status it names, as `application/scim+json`. A ServiceError of the shared services maps to the
 * status of the same meaning.
 */
import { ServiceError, toServiceError, type ErrorCode } from '../../../core/errors.js';
import type { RawResponse } from '../../../core/plugin.js';

export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const SCIM_JSON = 'application/scim+json';

/** RFC 7644 Table 9 scimType values used here. */
export type ScimType =
  'invalidFilter' | 'invalidSyntax' | 'invalidPath' | 'invalidValue' | 'uniqueness' | 'mutability' | 'noTarget';

export class ScimError extends Error {
  constructor(
    readonly status: number,
    detail: string,
    readonly scimType?: ScimType,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

export const badRequest = (scimType: ScimType, detail: string) => new ScimError(400, detail, scimType);
export const scimNotFound = (detail = 'resource not found') => new ScimError(404, detail);
export const unauthorized = () =>
  new ScimError(401, 'a valid SCIM bearer token is required', undefined, { 'www-authenticate': 'Bearer realm="scim"' });

const BY_CODE: Partial<Record<ErrorCode, { status: number; scimType?: ScimType }>> = {
  invalid_argument: { status: 400, scimType: 'invalidValue' },
  failed_precondition: { status: 400, scimType: 'invalidValue' },
  already_exists: { status: 409, scimType: 'uniqueness' },
  not_found: { status: 404 },
  unauthenticated: { status: 401 },
  permission_denied: { status: 403 },
  resource_exhausted: { status: 429 },
  unavailable: { status: 503 },
};

/** The SCIM error answer for anything thrown; null for what is not a known refusal (an internal error). */
export function scimErrorResponse(err: unknown): RawResponse | null {
  let e: ScimError | null = null;
  if (err instanceof ScimError) e = err;
  else if (err instanceof ServiceError) {
    const mapped = BY_CODE[err.code];
    if (mapped) e = new ScimError(mapped.status, err.message, mapped.scimType, { ...(err.headers ?? {}) });
  } else {
    // A store that could not be reached (the database's pool wait, a connection lost) is a 503 the
    // client may retry, not an internal error.
    const s = toServiceError(err);
    if (s.code === 'unavailable') e = new ScimError(503, s.message);
  }
  if (!e) return null;
  return {
    status: e.status,
    headers: { 'content-type': SCIM_JSON, 'cache-control': 'no-store', ...e.headers },
    body: JSON.stringify({
      schemas: [ERROR_SCHEMA],
      status: String(e.status),
      ...(e.scimType ? { scimType: e.scimType } : {}),
      detail: e.message,
    }),
  };
}

export function internalErrorResponse(): RawResponse {
  return {
    status: 500,
    headers: { 'content-type': SCIM_JSON },
    body: JSON.stringify({ schemas: [ERROR_SCHEMA], status: '500', detail: 'internal server error' }),
  };
}
