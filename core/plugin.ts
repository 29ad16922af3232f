/**
 * The plugin contract. A plugin is a plain object; `definePlugin` only checks its
 * shape and keeps the types.
 */
import type { Registry } from 'prom-client';
import type { AuditEventDeclaration } from './audit.js';
import type { Config, FlagDeclaration } from './config.js';
import type { RequestContext, Principal } from './context.js';
import type { EventBus } from './events.js';
import type { HookBus } from './hooks.js';
import type { Logger } from './logger.js';
import type { MemoryStore } from './memory-store.js';
import type { AnyOperation } from './operations.js';
import type { EntityDefinition, Storage } from './storage.js';
import type { Services } from './services.js';
import type { TSchema } from '@sinclair/typebox';

/** A raw HTTP endpoint that is not an operation (`/authorize`, `/oauth/token`, well-knowns). */
export interface RawRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** Exempt from the CSRF Origin rule (`/mcp`, token endpoints for back ends). */
  csrfExempt?: boolean;
  /** Accept `application/x-www-form-urlencoded` bodies (RFC 6749 §4.1.3). */
  form?: boolean;
  /**
   * The shape of refusals the HTTP layer makes instead of the handler (bad JSON, too large a
   * body, a wrong method, content type or encoding, CSRF, rate limit, a path not found under the
   * route's): `oauth` answers RFC 6749 §5.2's `{error, error_description}` where clients of the
   * token endpoints read it, `oauth-registration` the same with RFC 7591 §3.2.2's codes; `scim`
   * answers RFC 7644 §3.12's error schema as `application/scim+json`; `json-rpc` a JSON-RPC 2.0
   * error object (MCP). The default is REST's `{code, message}`.
   */
  errors?: 'oauth' | 'oauth-registration' | 'scim' | 'json-rpc';
  /**
   * A per-client-IP bucket of the route's own, separate from the global limiter (org
   * discovery and dynamic registration have one): at most `max` requests per `timeWindow`
   * (milliseconds, or a text such as '1 minute'). Over it the request is a 429 with Retry-After.
   * Shared by every node when --redis-url is set. Without it the route counts in the global limit.
   */
  rateLimit?: { max: number; timeWindow: number | string };
  handler: (req: RawRequest, ctx: RequestContext) => Promise<RawResponse>;
}

export interface RawRequest {
  method: string;
  path: string;
  query: Record<string, string | undefined>;
  /**
   * The query string as the client sent it (no leading `?`, still percent-encoded): a signature
   * over the URL's encoded parameters is checked against these bytes, never a re-encoding of
   * `query` (SAML Bindings §3.4.4.1).
   */
  rawQuery?: string;
  headers: Record<string, string | undefined>;
  body: unknown;
}

export interface RawResponse {
  status: number;
  headers?: Record<string, string>;
  /** Objects are sent as JSON; strings as-is (set content-type yourself). */
  body?: unknown;
}

/** Recognises the caller for an access level; null when this authenticator does not apply. */
/**
 * Finds the caller of a request, or null. It may answer without a promise when it needs no I/O
 * (a header compared in memory): the kernel then admits the call without extra microtask turns.
 */
export type Authenticator = (ctx: RequestContext, input: unknown) => Promise<Principal | null> | Principal | null;

export interface PluginSetupContext {
  readonly config: Config;
  readonly storage: Storage;
  readonly memory: MemoryStore;
  readonly events: EventBus;
  readonly hooks: HookBus;
  readonly logger: Logger;
  /** The names of the enabled plugins, in boot order. */
  readonly plugins: readonly string[];
  /** The enabled plugins themselves, in boot order (their declared `events` and `auditEvents`). */
  readonly definitions: readonly AnyPlugin[];
  /** A service declared by a plugin this one depends on (no cross-plugin imports). */
  service<K extends keyof Services>(name: K): Services[K];
  /** The service if its plugin is present (for optional collaborations). */
  optionalService<K extends keyof Services>(name: K): Services[K] | undefined;
  /** Registers how callers are recognised for an access level. */
  authenticate(access: 'session' | 'admin' | 'org-admin', fn: Authenticator): void;
  /** Registers work to run when the kernel closes (connections, timers). */
  onClose(fn: () => Promise<void> | void): void;
  /**
   * The kernel's Prometheus registry (prom-client): a plugin registers its own counters here at
   * setup, and `/metrics` renders them beside the process and request metrics.
   */
  readonly metrics: Registry;
}

export interface PluginDefinition<S = unknown> {
  name: string;
  description: string;
  dependsOn?: string[];
  /** Defaults to always enabled. A disabled plugin contributes nothing but its flags. */
  enabled?: (config: Config) => boolean;
  flags?: FlagDeclaration[];
  /** Rejects configurations this plugin cannot run with; the message is printed at startup. */
  validateConfig?: (config: Config) => string | undefined;
  entities?: EntityDefinition[];
  /** The plugin's API; a function form sees the whole build (for example Meta's field list). */
  operations?: AnyOperation[] | ((build: BuildInfo) => AnyOperation[]);
  routes?: RawRoute[];
  /** Webhook event names this plugin emits (subscribable with add_webhook). */
  events?: string[];
  /**
   * Domain events of this plugin that are audited actions, by event name (docs/audit.md): for
   * security events that no operation performs (a raw route, a background step). The event's
   * payload carries `actor`, `actor_kind`, `ip` and `user_agent`.
   */
  auditEvents?: Record<string, AuditEventDeclaration>;
  /** Fields this plugin contributes to Meta; extra keys extend the Meta type. */
  meta?: (config: Config) => Record<string, boolean | string>;
  /** Schemas of Meta fields this plugin adds beyond the contract (custom providers). */
  metaFields?: Record<string, TSchema>;
  /** Wires services; the returned object is what dependants get from `service(name)`. */
  setup?: (ctx: PluginSetupContext) => S | Promise<S>;
}

/** What an operations factory may know about the build it is part of. */
export interface BuildInfo {
  readonly config: Config;
  readonly plugins: readonly AnyPlugin[];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyPlugin = PluginDefinition<any>;

const NAME = /^[a-z][a-z0-9-]*$/;

export function definePlugin<S>(plugin: PluginDefinition<S>): PluginDefinition<S> {
  if (!NAME.test(plugin.name)) throw new Error(`plugin name "${plugin.name}" must be kebab-case`);
  for (const f of plugin.flags ?? []) {
    if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(f.name)) {
      throw new Error(`plugin ${plugin.name}: flag "${f.name}" must be kebab-case`);
    }
  }
  return plugin;
}
