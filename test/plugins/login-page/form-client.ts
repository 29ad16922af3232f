/**
 * A browser without JavaScript for the hosted page's forms: a cookie jar, GETs and form posts
 * with the page's own Origin, redirects not followed.
 */
export interface FormAnswer {
  status: number;
  location: string | null;
  html: string;
}

export function formClient(baseUrl: string) {
  const jar = new Map<string, string>();
  const remember = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      if (attrs.some((a) => /^\s*max-age=0\s*$/i.test(a))) jar.delete(name);
      else jar.set(name, pair.slice(eq + 1).trim());
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const answer = async (res: Response): Promise<FormAnswer> => {
    remember(res);
    return { status: res.status, location: res.headers.get('location'), html: await res.text() };
  };
  return {
    jar,
    async get(path: string): Promise<FormAnswer> {
      return answer(await fetch(`${baseUrl}${path}`, { redirect: 'manual', headers: { cookie: cookie() } }));
    },
    async post(path: string, form: Record<string, string>, origin: string | null = baseUrl): Promise<FormAnswer> {
      const headers: Record<string, string> = {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: cookie(),
      };
      if (origin !== null) headers.origin = origin;
      return answer(
        await fetch(`${baseUrl}${path}`, {
          method: 'POST',
          redirect: 'manual',
          headers,
          body: new URLSearchParams(form).toString(),
        }),
      );
    },
  };
}

/** The value of the hidden field `name` of a page. */
export const hidden = (html: string, name: string): string =>
  html.match(new RegExp(`name="${name}" value="([^"]*)"`))?.[1] ?? '';
