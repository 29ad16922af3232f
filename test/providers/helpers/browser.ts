/**
 * A browser's part of a redirect-based login, without a browser: follows Location headers and
 * keeps cookies per host (RFC 6265 names and values; attributes other than Max-Age=0 ignored),
 * and stops when the next hop leaves for the application's redirect target.
 */
export interface Hop {
  url: string;
  status: number;
  location?: string;
  body?: string;
}

export class Browser {
  readonly jar = new Map<string, Map<string, string>>();

  cookiesOf(url: string): Map<string, string> {
    const host = new URL(url).host;
    let cookies = this.jar.get(host);
    if (!cookies) this.jar.set(host, (cookies = new Map()));
    return cookies;
  }

  private store(url: string, res: Response): void {
    const cookies = this.cookiesOf(url);
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
  }

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const cookies = [...this.cookiesOf(url)].map(([k, v]) => `${k}=${v}`).join('; ');
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
      hops.push({ url: next, status: res.status, body: await res.text() });
      return hops;
    }
    throw new Error(`more than ${limit} redirects from ${url}`);
  }
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
