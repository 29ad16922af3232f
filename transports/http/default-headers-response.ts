/**
 * The standalone server's response class (createServer, server.ts): it writes the headers every
 * response carries (security-headers.ts) as one text, checked once at startup, in front of the
 * response's own header lines, instead of the onRequest hook copying them into every reply.
 *
 * Why: Node checks every header name and value of every response with a regular expression and
 * Fastify lower-cases and stores each one per reply; for the seven defaults that was ~23k machine
 * instructions per request, about a tenth of a bearer `profile` (bench/profiling/README.md,
 * session 30). The bytes on the wire are the same.
 *
 * How: Node builds a response's header block in `OutgoingMessage#_storeHeader(firstLine,
 * headers)`, starting from the status line. This class hands it the status line followed by the
 * default lines. The method is not documented, so `defaultHeadersResponse` checks at startup that
 * it is there with that shape and otherwise answers null; the onRequest hook then adds the
 * defaults as before (it also does so for every response not of this class: an app that embeds
 * the kernel, Fastify's `inject`).
 *
 * A response that sets one of these headers itself (the hosted pages' Content-Security-Policy,
 * any `vary`) sends its own instead of the default, as when the hook's value was replaced; a
 * route that takes a default away (`removeDefaultHeader`) sends it not at all. The REST and
 * GraphQL answers' `cache-control: no-store` goes the same way (`sendNoStore`).
 */
import { ServerResponse, validateHeaderName, validateHeaderValue, type IncomingMessage } from 'node:http';

/** Set on this class's prototype: the default lines its responses write (the hook compares). */
export const DEFAULT_BLOCK = Symbol('latchkey.defaultHeaderBlock');
/** `Cache-Control: no-store` (RFC 9111 §5.2.2.5), asked for per response by `sendNoStore`. */
const NO_STORE_LINE = 'cache-control: no-store\r\n';

interface StoresHeader {
  _storeHeader(this: ServerResponse, firstLine: string, headers: unknown): void;
}

/** What a response of the class carries besides Node's own fields (class fields: one shape for all). */
interface WithDefaults {
  [DEFAULT_BLOCK]?: string;
  /** Set only when a route took a default away: the lower-case names left out. */
  omittedDefaults?: Set<string> | undefined;
  /** Whether `cache-control: no-store` is written (unless the response sets its own cache-control). */
  noStore?: boolean;
}

/** The header lines of `headers` (lower-case names), in order, as Node writes them. */
export function headerBlock(headers: Readonly<Record<string, string>>, skip?: (name: string) => boolean): string {
  let block = '';
  for (const [name, value] of Object.entries(headers)) if (!skip?.(name)) block += `${name}: ${value}\r\n`;
  return block;
}

/**
 * One string object per distinct full block, so that the hook's per-request comparison with a
 * response's block is a pointer comparison, not one of ~200 characters.
 */
const fullBlocks = new Map<string, string>();
export function fullBlockOf(headers: Readonly<Record<string, string>>): string {
  const block = headerBlock(headers);
  const known = fullBlocks.get(block);
  if (known !== undefined) return known;
  fullBlocks.set(block, block);
  return block;
}

/** `found` with `key` added when it names one of `names` (any case). */
function noted(found: Set<string> | null, key: unknown, names: ReadonlySet<string>): Set<string> | null {
  if (typeof key !== 'string') return found;
  const name = key.toLowerCase();
  if (!names.has(name)) return found;
  return (found ?? new Set<string>()).add(name);
}

/** The lower-case names among `names` that the response's own headers (any form Node takes) set, or null for none. */
function ownOf(headers: unknown, names: ReadonlySet<string>): Set<string> | null {
  if (headers === null || typeof headers !== 'object') return null;
  let found: Set<string> | null = null;
  if (Array.isArray(headers)) {
    // writeHead(status, [[name, value], ...]) or writeHead(status, [name, value, ...]).
    const nested = headers.length > 0 && Array.isArray(headers[0]);
    for (let i = 0; i < headers.length; i += nested ? 1 : 2)
      found = noted(found, nested ? (headers[i] as unknown[])[0] : headers[i], names);
    return found;
  }
  // Fastify's reply headers or Node's own store: keyed by (lower-case) name.
  for (const key in headers) if (Object.hasOwn(headers, key)) found = noted(found, key, names);
  return found;
}

/**
 * A ServerResponse class that writes `defaults` (lower-case names) on every response, or null
 * when this Node's response has not the internal shape it relies on (the caller then leaves the
 * defaults to the hook). Names and values are checked here once, as Node would check them.
 */
export function defaultHeadersResponse(defaults: Readonly<Record<string, string>>): typeof ServerResponse | null {
  const base = (ServerResponse.prototype as unknown as Partial<StoresHeader>)._storeHeader;
  if (typeof base !== 'function' || base.length !== 2) return null;
  for (const [name, value] of Object.entries(defaults)) {
    if (name !== name.toLowerCase()) throw new Error(`default header ${name}: names are lower-case`);
    validateHeaderName(name);
    validateHeaderValue(name, value);
  }
  if (Object.hasOwn(defaults, 'cache-control'))
    throw new Error('cache-control is per response (sendNoStore), not a default');
  // The names a response's own header replaces: the defaults and the no-store line.
  const names = new Set([...Object.keys(defaults), 'cache-control']);
  const full = fullBlockOf(defaults);

  class DefaultHeadersResponse<Request extends IncomingMessage = IncomingMessage>
    extends ServerResponse<Request>
    implements WithDefaults
  {
    omittedDefaults: Set<string> | undefined = undefined;
    noStore = false;

    _storeHeader(firstLine: string, headers: unknown): void {
      const omitted = this.omittedDefaults;
      const own = ownOf(headers, names);
      let block =
        own === null && omitted === undefined
          ? full
          : headerBlock(defaults, (n) => own?.has(n) === true || omitted?.has(n) === true);
      if (this.noStore && own?.has('cache-control') !== true) block += NO_STORE_LINE;
      (base as StoresHeader['_storeHeader']).call(this, firstLine + block, headers);
    }
  }
  Object.defineProperty(DefaultHeadersResponse.prototype, DEFAULT_BLOCK, { value: full });
  return DefaultHeadersResponse;
}

/** The default lines `response` writes itself, or undefined when it is not of such a class. */
export const defaultBlockOf = (response: ServerResponse): string | undefined =>
  (response as WithDefaults)[DEFAULT_BLOCK];

/** Leaves the default header `name` (lower-case) out of this response when it writes the defaults itself. */
export function omitDefault(response: ServerResponse, name: string): void {
  const r = response as WithDefaults;
  if (r[DEFAULT_BLOCK] !== undefined) (r.omittedDefaults ??= new Set()).add(name);
}

/**
 * Has this response write `cache-control: no-store` from a line checked once, and answers true;
 * false for a response not of the class (the caller sets the header itself). A cache-control
 * the response sets of its own is sent instead.
 */
export function sendNoStore(response: ServerResponse): boolean {
  const r = response as WithDefaults;
  if (r[DEFAULT_BLOCK] === undefined) return false;
  r.noStore = true;
  return true;
}
