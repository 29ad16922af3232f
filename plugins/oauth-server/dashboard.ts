/** GET / (SPEC.md: "Opens the authorize dashboard"): the hosted page when enabled. */
import type { RawResponse, RawRoute } from '../../core/plugin.js';
import { LOGIN_PAGE_PATH } from './authorize/endpoint.js';
import { baseOf } from './issuer.js';

export const dashboardRoute: RawRoute = {
  method: 'GET',
  path: '/',
  handler: async (_req, ctx): Promise<RawResponse> => {
    const hasPage = ctx.kernel.routes.some((r) => r.path === LOGIN_PAGE_PATH && r.method === 'GET');
    if (hasPage) return { status: 302, headers: { location: `${baseOf(ctx.kernel.config)}${LOGIN_PAGE_PATH}` } };
    const name = ctx.kernel.config.string('organization-name', 'Latchkey').replace(/[&<>"']/g, '');
    return {
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: `<!doctype html><html><head><meta charset="utf-8"><title>${name}</title></head><body><h1>${name}</h1><p>OpenID Connect provider. Discovery: <a href="/.well-known/openid-configuration">/.well-known/openid-configuration</a></p></body></html>`,
    };
  },
};
