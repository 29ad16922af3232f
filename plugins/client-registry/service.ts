/**
 * The client registry service: admin CRUD over registered clients, plus the lookups the OAuth
 * server needs on every request (find by client_id, authenticate a secret). The built-in client
 * of `--client-id`/`--client-secret` is served from the configuration and cannot be edited.
 */
import { LRUCache } from 'lru-cache';
import type { Config } from '../../core/config.js';
import { invalidArgument, notFound } from '../../core/errors.js';
import type { Storage } from '../../core/storage.js';
import { newId } from '../../storage/ids.js';
import { OAuthClientEntity, type OAuthClientRow } from './entities.js';
import { ownSite as ownSiteOf } from '../../core/own-site.js';
import { digestSecret, newClientId, newClientSecret, secretMatches } from './secret.js';
import { checkName, checkRedirectUris, checkScopes } from './validation.js';

export interface OAuthClient {
  id: string;
  clientId: string;
  name: string;
  description: string | null;
  allowedScopes: string[];
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  isActive: boolean;
  createdAt: number;
  updatedAt: number;
  /** The `--client-id` application client: redirects are checked against `--allowed-origins`. */
  builtIn: boolean;
  /** Registered by itself (RFC 7591): a public client, PKCE S256 and consent required. */
  selfRegistered: boolean;
  /**
   * Described by a client ID metadata document fetched from its https `clientId`: self-asserted
   * like a self-registered client (`selfRegistered` is true too), never stored.
   */
  metadataDocument?: {
    /** `none` (PKCE alone) or `private_key_jwt` with the keys at `jwksUri` (RFC 7523 §2.2). */
    tokenEndpointAuthMethod: 'none' | 'private_key_jwt';
    jwksUri?: string;
  };
}

/**
 * Clients that are not rows: client ID metadata documents, resolved from their URL by the
 * plugin that fetches them. `handles` says which ids it resolves (checked after the registry's
 * own rows, so a pre-registered client always wins); `resolve` answers the client or why not.
 */
export interface ClientDocumentSource {
  handles(clientId: string): boolean;
  resolve(clientId: string): Promise<{ client: OAuthClient } | { error: string }>;
}

export interface SelfRegistrationInput {
  name: string;
  redirect_uris: string[];
  scopes: string[];
}

export interface CreateClientInput {
  name: string;
  description?: string;
  allowed_scopes: string[];
  redirect_uris?: string[];
  post_logout_redirect_uris?: string[];
}

export interface UpdateClientInput {
  id: string;
  name?: string;
  description?: string;
  allowed_scopes?: string[];
  redirect_uris?: string[];
  post_logout_redirect_uris?: string[];
  is_active?: boolean;
}

export interface ClientRegistryService {
  create(input: CreateClientInput): Promise<{ client: OAuthClient; secret: string }>;
  /** A public, self-registered client (RFC 7591): no secret; `already_exists`-free. */
  registerPublic(input: SelfRegistrationInput): Promise<OAuthClient>;
  /** How many self-registered clients exist (the registration ceiling). */
  countSelfRegistered(): Promise<number>;
  update(input: UpdateClientInput): Promise<OAuthClient>;
  remove(id: string): Promise<void>;
  rotateSecret(id: string): Promise<{ client: OAuthClient; secret: string }>;
  get(id: string): Promise<OAuthClient>;
  list(page: number, limit: number): Promise<{ clients: OAuthClient[]; total: number }>;
  /** A client by its public client_id (active or not); the built-in client included. */
  findByClientId(clientId: string): Promise<OAuthClient | null>;
  /**
   * Like findByClientId, with the reason a client is unknown: pre-registered (and
   * self-registered) rows first, then a client ID metadata document when a source handles the id.
   */
  resolveClient(clientId: string): Promise<{ client: OAuthClient } | { error: string }>;
  /** Adds the source of metadata-document clients (one per registry). */
  useDocumentSource(source: ClientDocumentSource): void;
  /** The client when the secret is right, whatever its active state; null otherwise. */
  authenticate(clientId: string, secret: string): Promise<OAuthClient | null>;
  /** Whether a redirect URI is registered for the client (exact match, RFC 9700 §4.1.3). */
  redirectAllowed(client: OAuthClient, uri: string): boolean;
  /** Whether a post-logout destination is registered for the client. */
  logoutRedirectAllowed(client: OAuthClient, uri: string): boolean;
}

declare module '../../core/services.js' {
  interface Services {
    'client-registry': ClientRegistryService;
  }
}

/** Lookups are cached briefly; writes on this node drop the entry at once (other nodes: TTL). */
const CACHE_TTL_MS = 5_000;

interface Cached {
  client: OAuthClient;
  digest: string;
}

/** Control characters never occur in a client id; a NUL would reach the SQL text and fail there (a 500). */
const CONTROL = /[\u0000-\u001f\u007f]/;
/** A metadata document's client id is a URL, longer than a registered id may be. */
const MAX_DOCUMENT_ID = 2048;

export function createClientRegistry(storage: Storage, config: Config): ClientRegistryService {
  const cache = new LRUCache<string, Cached>({ max: 10_000, ttl: CACHE_TTL_MS });
  let documents: ClientDocumentSource | undefined;
  const builtInId = config.string('client-id') ?? '';
  const builtInSecret = config.string('client-secret') ?? '';
  const origins = config.list('allowed-origins');
  const builtIn: OAuthClient = {
    id: builtInId,
    clientId: builtInId,
    name: config.string('organization-name') ?? 'Latchkey',
    description: 'The built-in application client (--client-id).',
    allowedScopes: [],
    redirectUris: [],
    postLogoutRedirectUris: [],
    isActive: true,
    createdAt: 0,
    updatedAt: 0,
    builtIn: true,
    selfRegistered: false,
  };
  const builtInDigest = digestSecret(builtInSecret);

  const toClient = (r: OAuthClientRow): OAuthClient => ({
    id: r.id,
    clientId: r.clientId,
    name: r.name,
    description: r.description ?? null,
    allowedScopes: [...r.allowedScopes],
    redirectUris: [...(r.redirectUris ?? [])],
    postLogoutRedirectUris: [...(r.postLogoutRedirectUris ?? [])],
    isActive: r.isActive,
    createdAt: Number(r.createdAt),
    updatedAt: Number(r.updatedAt),
    builtIn: false,
    selfRegistered: Boolean(r.selfRegistered),
  });

  async function row(id: string): Promise<OAuthClientRow> {
    const found = (await storage.em().findOne(OAuthClientEntity, { id })) as OAuthClientRow | null;
    if (!found) throw notFound('client not found');
    return found;
  }

  async function load(clientId: string): Promise<Cached | null> {
    if (clientId === builtInId) return { client: builtIn, digest: builtInDigest };
    const hit = cache.get(clientId);
    if (hit) return hit;
    const found = (await storage.em().findOne(OAuthClientEntity, { clientId })) as OAuthClientRow | null;
    if (!found) return null;
    const entry = { client: toClient(found), digest: found.secretDigest };
    cache.set(clientId, entry);
    return entry;
  }

  /** Client priority: the built-in client, then rows (pre- or self-registered), then documents. */
  async function resolveClient(clientId: string): Promise<{ client: OAuthClient } | { error: string }> {
    if (!clientId || clientId.length > MAX_DOCUMENT_ID || CONTROL.test(clientId)) return { error: 'unknown client_id' };
    if (clientId.length <= 256) {
      const row = await load(clientId);
      if (row) return { client: row.client };
    }
    if (documents?.handles(clientId)) return documents.resolve(clientId);
    return { error: 'unknown client_id' };
  }

  const urlOf = (uri: string): URL | null => {
    try {
      return new URL(uri);
    } catch {
      return null;
    }
  };

  /**
   * The built-in client may redirect to a URI of a listed origin. `--allowed-origins *` (the flag's
   * default) opens CORS to every origin, but it does not send tokens anywhere: with it, the
   * built-in client redirects only within the service's own site (the host of `--url`, or the
   * parent domain its `cookie_session_domain` uses), or from loopback to loopback when `--url` is
   * one (development). A `*` would let /authorize hand an implicit-flow token to any URL, and an
   * account takeover follows (RFC 9700 §4.1.3, RFC 6749 §10.15).
   */
  const site = ownSiteOf(config.string('url'));
  // The listed origins, normalised once (a trailing slash or a path in the flag is ignored).
  const listed = new Set(origins.filter((o) => o !== '*').flatMap((o) => urlOf(o)?.origin ?? []));
  const anyOrigin = origins.includes('*');
  // Within the site, only web schemes, and never down from https: a service on https must not
  // hand tokens to http://, ftp:// and ws:// URIs of its own site (RFC 9700 §2.1).
  const httpsService = urlOf(config.string('url') ?? '')?.protocol === 'https:';
  const siteScheme = (protocol: string): boolean => protocol === 'https:' || (protocol === 'http:' && !httpsService);
  const builtInAllows = (uri: string): boolean => {
    const url = urlOf(uri);
    if (!url || url.origin === 'null' || uri.includes('#')) return false;
    return listed.has(url.origin) || (anyOrigin && siteScheme(url.protocol) && site.includes(url.hostname));
  };

  return {
    async create(input) {
      const name = checkName(input.name);
      const now = Date.now();
      const secret = newClientSecret();
      const entity: OAuthClientRow = {
        id: newId(),
        clientId: newClientId(),
        name,
        description: input.description ?? null,
        allowedScopes: checkScopes(input.allowed_scopes),
        redirectUris: checkRedirectUris(input.redirect_uris, 'redirect_uris'),
        postLogoutRedirectUris: checkRedirectUris(input.post_logout_redirect_uris, 'post_logout_redirect_uris'),
        secretDigest: digestSecret(secret),
        isActive: true,
        createdAt: now,
        updatedAt: now,
      };
      const em = storage.em();
      em.create(OAuthClientEntity, entity);
      await em.flush();
      return { client: toClient(entity), secret };
    },

    async registerPublic(input) {
      const now = Date.now();
      const entity: OAuthClientRow = {
        id: newId(),
        clientId: newClientId(),
        name: checkName(input.name),
        description: null,
        allowedScopes: checkScopes(input.scopes),
        redirectUris: checkRedirectUris(input.redirect_uris, 'redirect_uris'),
        postLogoutRedirectUris: [],
        // No secret exists: an empty digest matches no presented secret (authenticate refuses it).
        secretDigest: '',
        selfRegistered: true,
        isActive: true,
        createdAt: now,
        updatedAt: now,
      };
      const em = storage.em();
      em.create(OAuthClientEntity, entity);
      await em.flush();
      return toClient(entity);
    },

    countSelfRegistered: () => storage.em().count(OAuthClientEntity, { selfRegistered: true }),

    async update(input) {
      // Validate everything before touching the row: no half-written records.
      const name = input.name !== undefined ? checkName(input.name) : undefined;
      const scopes = input.allowed_scopes !== undefined ? checkScopes(input.allowed_scopes) : undefined;
      const redirects =
        input.redirect_uris !== undefined ? checkRedirectUris(input.redirect_uris, 'redirect_uris') : undefined;
      const logout =
        input.post_logout_redirect_uris !== undefined
          ? checkRedirectUris(input.post_logout_redirect_uris, 'post_logout_redirect_uris')
          : undefined;
      const em = storage.em();
      const found = (await em.findOne(OAuthClientEntity, { id: input.id })) as OAuthClientRow | null;
      if (!found) throw notFound('client not found');
      if (name !== undefined) found.name = name;
      if (input.description !== undefined) found.description = input.description;
      if (scopes) found.allowedScopes = scopes;
      if (redirects) found.redirectUris = redirects;
      if (logout) found.postLogoutRedirectUris = logout;
      if (input.is_active !== undefined) found.isActive = input.is_active;
      found.updatedAt = Date.now();
      await em.flush();
      cache.delete(found.clientId);
      return toClient(found);
    },

    async remove(id) {
      const em = storage.em();
      const found = (await em.findOne(OAuthClientEntity, { id })) as OAuthClientRow | null;
      if (!found) throw notFound('client not found');
      await em.nativeDelete(OAuthClientEntity, { id });
      cache.delete(found.clientId);
    },

    async rotateSecret(id) {
      const em = storage.em();
      const found = (await em.findOne(OAuthClientEntity, { id })) as OAuthClientRow | null;
      if (!found) throw notFound('client not found');
      const secret = newClientSecret();
      found.secretDigest = digestSecret(secret);
      found.updatedAt = Date.now();
      await em.flush();
      cache.delete(found.clientId);
      return { client: toClient(found), secret };
    },

    async get(id) {
      return toClient(await row(id));
    },

    async list(page, limit) {
      if (page < 1 || limit < 1) throw invalidArgument('invalid pagination');
      const [rows, total] = await storage
        .em()
        .findAndCount(
          OAuthClientEntity,
          {},
          { orderBy: { createdAt: 'asc', id: 'asc' }, limit, offset: (page - 1) * limit },
        );
      return { clients: (rows as OAuthClientRow[]).map(toClient), total };
    },

    async findByClientId(clientId) {
      const found = await resolveClient(clientId);
      return 'client' in found ? found.client : null;
    },

    resolveClient,

    useDocumentSource(source) {
      if (documents) throw new Error('the client registry already has a metadata document source');
      documents = source;
    },

    async authenticate(clientId, secret) {
      if (!clientId || clientId.length > 256 || CONTROL.test(clientId) || !secret || secret.length > 512) return null;
      const entry = await load(clientId);
      if (!entry) {
        // Same work as a real check so unknown ids and wrong secrets take the same time.
        secretMatches(builtInDigest, secret + '\0');
        return null;
      }
      // A public client has no secret: presenting one authenticates nothing.
      if (entry.digest === '') {
        secretMatches(builtInDigest, secret + '\0');
        return null;
      }
      return secretMatches(entry.digest, secret) ? entry.client : null;
    },

    redirectAllowed(client, uri) {
      if (client.builtIn) return builtInAllows(uri);
      return client.redirectUris.includes(uri);
    },

    logoutRedirectAllowed(client, uri) {
      if (client.builtIn) return builtInAllows(uri);
      return client.postLogoutRedirectUris.includes(uri) || client.redirectUris.includes(uri);
    },
  };
}
