/**
 * The API reference (REST): `GET /openapi.json` answers the OpenAPI
 * document of this server's REST projection, the same text `npm run generate` commits as
 * transports/openapi/openapi.json for the default distribution, and `GET /reference` renders it
 * with Swagger UI (@fastify/swagger in static mode holds the document, @fastify/swagger-ui serves
 * the page and its assets from this server: no CDN). Both live only where REST does.
 *
 * The service's policy is `default-src 'none'`; these pages alone get the one Swagger UI needs:
 * its own scripts and styles, the document and "try it out" calls to this origin, data: images
 * (its icons). No inline script runs: the page's boot script is a file of the plugin. Inline
 * styles are allowed, because Swagger UI's components render `<style>` elements of their own;
 * a style cannot run code, and scripts stay limited to this origin's files.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { packageInfo } from '../../../core/package-info.js';
import type { CompiledOperation } from '../../../core/operations.js';
import { buildOpenApi } from '../../openapi/openapi.js';

export const REFERENCE_PATH = '/reference';

export const REFERENCE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export async function registerApiReference(app: FastifyInstance, ops: readonly CompiledOperation[]): Promise<void> {
  const document = buildOpenApi(ops, packageInfo().version);
  const text = `${JSON.stringify(document, null, 2)}\n`;
  app.get('/openapi.json', (_request, reply) => {
    void reply.type('application/json; charset=utf-8').send(text);
  });
  await app.register(async function apiReferenceScope(scope) {
    await scope.register(swagger, { mode: 'static', specification: { document: document as never } });
    await scope.register(swaggerUi, {
      routePrefix: REFERENCE_PATH,
      staticCSP: REFERENCE_CSP,
      uiConfig: { deepLinking: true, validatorUrl: null },
    });
  });
}
