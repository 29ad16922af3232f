/**
 * The request context (DESIGN.md §3): who is calling, from where, with which cookies, and the
 * effects (cookies to set or clear, headers) the operation wants applied. Each transport builds one
 * per call and applies the effects in its own way (Set-Cookie over HTTP, metadata over gRPC).
 */
import type { Kernel } from './kernel.js';
import { ServiceError } from './errors.js';
import { parseCookieHeader } from './cookies.js';

export type TransportName = 'rest' | 'graphql' | 'grpc' | 'mcp' | 'http' | 'internal';

export interface CookieOptions {
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: 'lax' | 'strict' | 'none';
  path?: string;
  domain?: string;
  /** Seconds; 0 or negative clears the cookie. */
  maxAge?: number;
}

export interface CookieEffect {
  name: string;
  value: string;
  options: CookieOptions;
}

/** Who the caller is, once an authenticator has recognised them. */
export interface Principal {
  kind: 'user' | 'admin' | 'service' | 'agent' | 'org-admin';
  /** FGA-style subject, e.g. `user:<id>`, `service_account:<client_id>`. */
  subject: string;
  userId?: string;
  sessionId?: string;
  clientId?: string;
  scopes?: string[];
  roles?: string[];
  /** Verified token claims, when the caller came with a token. */
  claims?: Record<string, unknown>;
  /** Organization ids this principal administers (org-admin access). */
  orgAdminOf?: string[];
}

export interface RequestContextInit {
  kernel: Kernel;
  transport: TransportName;
  ip: string;
  headers?: Record<string, string | undefined>;
  /** Parsed cookies; when absent they are parsed from the `cookie` header on first use. */
  cookies?: Record<string, string | undefined>;
  /**
   * False when the transport has found that the caller's cookies must not act for it (a browser
   * request from an origin that may not use credentials): then no cookie is read or set. Default true.
   */
  cookiesHonoured?: boolean;
  userAgent?: string;
}

export class RequestContext {
  readonly kernel: Kernel;
  readonly transport: TransportName;
  readonly ip: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  private parsedCookies: Readonly<Record<string, string | undefined>> | undefined;
  readonly setCookies: CookieEffect[] = [];
  readonly responseHeaders: Record<string, string> = {};
  /** Set by the access check before the handler runs. */
  principal: Principal | undefined;
  private localsMap: Map<string, unknown> | undefined;
  /** See RequestContextInit.cookiesHonoured. */
  readonly cookiesHonoured: boolean;

  constructor(init: RequestContextInit) {
    this.kernel = init.kernel;
    this.transport = init.transport;
    this.ip = init.ip;
    this.headers = init.headers ?? {};
    this.cookiesHonoured = init.cookiesHonoured ?? true;
    this.parsedCookies = this.cookiesHonoured ? init.cookies : {};
  }

  header(name: string): string | undefined {
    return this.headers[name.toLowerCase()];
  }

  /** The bearer token of `Authorization: Bearer <token>`, if any (RFC 6750 §2.1). */
  bearer(): string | undefined {
    const h = this.header('authorization');
    if (!h) return undefined;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
    return m ? m[1] : undefined;
  }

  /** Per-request memo (authenticators cache their work here); made on first use. */
  get locals(): Map<string, unknown> {
    return (this.localsMap ??= new Map());
  }

  /** Most requests never read a cookie, so the header is parsed only when one is asked for. */
  get cookies(): Readonly<Record<string, string | undefined>> {
    return (this.parsedCookies ??= parseCookieHeader(this.headers.cookie));
  }

  cookie(name: string): string | undefined {
    return this.cookies[name];
  }

  setCookie(name: string, value: string, options: CookieOptions = {}): void {
    if (!this.cookiesHonoured) return;
    this.setCookies.push({ name, value, options: { path: '/', httpOnly: true, ...options } });
  }

  clearCookie(name: string, options: CookieOptions = {}): void {
    if (!this.cookiesHonoured) return;
    this.setCookies.push({ name, value: '', options: { path: '/', httpOnly: true, ...options, maxAge: 0 } });
  }

  /** The principal, or an `unauthenticated` error when the access check did not set one. */
  requirePrincipal(): Principal {
    if (!this.principal) throw new ServiceError('unauthenticated', 'unauthorized');
    return this.principal;
  }
}
