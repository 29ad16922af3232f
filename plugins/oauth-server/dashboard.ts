/** GET /: the start page, linking to the hosted login page and the other pages this server offers. */
import type { RawResponse, RawRoute } from '../../core/plugin.js';
import { LOGIN_PAGE_PATH } from './authorize/endpoint.js';
import { baseOf } from './issuer.js';

export const dashboardRoute: RawRoute = {
  method: 'GET',
  path: '/',
  handler: async (_req, ctx): Promise<RawResponse> => {
    const config = ctx.kernel.config;
    const base = baseOf(config);
    const hasPage = ctx.kernel.routes.some((r) => r.path === LOGIN_PAGE_PATH && r.method === 'GET');
    const name = config.string('organization-name', 'Latchkey').replace(/[&<>"']/g, '');
    // The pages this server offers: the hosted login page (--enable-login-page), the GraphQL
    // playground (--enable-playground, served at /graphiql by the GraphQL transport), the API
    // reference and its OpenAPI document (served by the HTTP transport), and OIDC discovery.
    const links: [string, string][] = [
      ...(hasPage ? ([[`${base}${LOGIN_PAGE_PATH}`, 'Sign in']] as [string, string][]) : []),
      ...(config.bool('enable-playground', false)
        ? ([[`${base}/graphiql`, 'GraphQL playground']] as [string, string][])
        : []),
      [`${base}/reference`, 'API reference'],
      [`${base}/openapi.json`, 'OpenAPI document'],
      [`${base}/.well-known/openid-configuration`, 'OpenID Connect discovery'],
    ];
    const items = links.map(([href, text]) => `<li><a href="${href.replace(/"/g, '%22')}">${text}</a></li>`).join('');
    return {
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: `<!doctype html><html><head><meta charset="utf-8"><title>${name}</title></head><body><h1>${name}</h1><p>Identity, session and authorization server.</p><ul>${items}</ul></body></html>`,
    };
  },
};
