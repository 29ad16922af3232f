/**
 * A browser's part of a redirect-based login, without a browser: follows Location headers and
 * keeps cookies per host, sending each only to paths under its Path (RFC 6265 §5.1.4; other
 * attributes but Max-Age=0 ignored), and stops when the next hop leaves for the application's
 * redirect target.
 */
export interface Hop {
  url: string;
  status: number;
  location?: string;
  body?: string;
}

const pathMatches = (requestPath: string, cookiePath: string): boolean =>
  requestPath === cookiePath ||
  (requestPath.startsWith(cookiePath) && (cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/'));

export class Browser {
  readonly jar = new Map<string, Map<string, string>>();
  private readonly paths = new Map<string, string>();

  /** The cookies a host holds, by name (tests may read and plant them). */
  cookiesOf(url: string): Map<string, string> {
    const host = new URL(url).host;
    let cookies = this.jar.get(host);
    if (!cookies) this.jar.set(host, (cookies = new Map()));
    return cookies;
  }

  private store(url: string, res: Response): void {
    const cookies = this.cookiesOf(url);
    const host = new URL(url).host;
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '') cookies.delete(name);
      else cookies.set(name, value);
      const path = attrs.map((a) => /^\s*path=(.*)$/i.exec(a)?.[1]?.trim()).find((p) => p !== undefined);
      this.paths.set(`${host} ${name}`, path && path.startsWith('/') ? path : '/');
    }
  }

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const { host, pathname } = new URL(url);
    const cookies = [...this.cookiesOf(url)]
      .filter(([k]) => pathMatches(pathname, this.paths.get(`${host} ${k}`) ?? '/'))
      .map(([k, v]) => `${k}=${v}`)
      .join('; ');
    const headers = new Headers(init.headers);
    if (cookies) headers.set('cookie', cookies);
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    this.store(url, res);
    return res;
  }

  /**
   * Follows redirects from `url` until a Location starts with `stopAt` (returned, not fetched)
   * or a response is not a redirect (returned with its body).
   */
  async follow(url: string, stopAt: string, init: RequestInit = {}, limit = 20): Promise<Hop[]> {
    const hops: Hop[] = [];
    let next = url;
    let options = init;
    for (let i = 0; i < limit; i++) {
      const res = await this.request(next, options);
      const location = res.headers.get('location') ?? undefined;
      if (res.status >= 300 && res.status < 400 && location) {
        const target = new URL(location, next).toString();
        hops.push({ url: next, status: res.status, location: target });
        await res.arrayBuffer();
        if (target.startsWith(stopAt)) return hops;
        next = target;
        options = {};
        continue;
      }
      const body = await res.text();
      hops.push({ url: next, status: res.status, body });
      const form = autoPostedForm(body);
      if (res.status === 200 && form) {
        // What a browser does with an auto-submitting page (OAuth 2.0 Form Post Response Mode).
        next = new URL(form.action, next).toString();
        options = {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(hops.at(-1)!.url).origin },
          body: form.fields.toString(),
        };
        continue;
      }
      return hops;
    }
    throw new Error(`more than ${limit} redirects from ${url}`);
  }
}

const unescape = (s: string) =>
  s
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"');

/** The form of a page that posts itself on load, with its hidden fields. */
function autoPostedForm(html: string): { action: string; fields: URLSearchParams } | undefined {
  if (!/onload="document\.forms\[0\]\.submit\(\)"/.test(html)) return undefined;
  const action = /<form method="post" action="([^"]*)"/.exec(html)?.[1];
  if (action === undefined) return undefined;
  const fields = new URLSearchParams();
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
    fields.set(unescape(m[1]), unescape(m[2]));
  return { action: unescape(action), fields };
}

/** The last hop's Location, parsed: where the login ended. */
export function landing(hops: Hop[]): URL {
  const last = hops.at(-1);
  if (!last?.location) throw new Error(`the login did not redirect back: ${last?.status} ${last?.body?.slice(0, 300)}`);
  return new URL(last.location);
}

/** The parameters the login delivered (fragment, else query). */
export function delivered(url: URL): URLSearchParams {
  return url.hash ? new URLSearchParams(url.hash.slice(1)) : url.searchParams;
}
