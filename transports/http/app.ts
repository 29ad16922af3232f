/**
 * Mounts one kernel's HTTP surface into a Fastify context: the security baseline (CORS, CSRF,
 * rate limit, security headers, body limit, error envelope), the REST projection, the raw routes
 * of plugins and GraphQL. Everything is registered inside the given encapsulated context, so a
 * host app's own routes and error handler are untouched (embedding).
 */
import { parse as parseQueryString } from 'node:querystring';
import cookie from '@fastify/cookie';
import type { FastifyError, FastifyInstance } from 'fastify';
import { ServiceError } from '../../core/errors.js';
import type { Kernel } from '../../core/kernel.js';
import { registerGraphql } from '../graphql/register.js';
import { addCsrfCheck } from './csrf.js';
import { refusalOfError, sendError } from './errors.js';
import type { HttpMetrics } from './metrics.js';
import { rateLimiterOf, registerRateLimit, type IpRateLimiter } from './rate-limit.js';
import { addRequestSteps, type RequestStep } from './request-steps.js';
import { registerRawRoutes } from './raw-routes.js';
import { registerRest } from './rest.js';
import { registerApiReference } from './reference-pages/api-reference.js';
import { originAllowList, refuseNonPreflightOptions, registerCors } from './cors.js';
import { credentialedOriginsOf } from './credentialed-origins.js';
import { httpsOnlyOf, securityHeadersStep } from './security-headers.js';
import { refuse, registerSurfaces, SurfaceMap } from './refusal-shapes.js';
import { oversizedBodiesStep } from './oversized-bodies.js';

/** Request headers browsers may send cross-origin. */
export const CORS_HEADERS = [
  'x-authorizer-url',
  'x-authorizer-client-id',
  'x-service-admin-secret',
  'authorization',
  'content-type',
];

export interface MountOptions {
  kernel: Kernel;
  metrics?: HttpMetrics;
  /**
   * The per-IP limiter, shared with the gRPC server so that a client has one budget over every
   * transport, gRPC included. Made here when not given
   * (an embedding app mounts HTTP alone).
   */
  rateLimiter?: IpRateLimiter | null;
}

export async function mountKernel(app: FastifyInstance, { kernel, metrics, rateLimiter }: MountOptions): Promise<void> {
  const config = kernel.config;
  const allowed = config.list('allowed-origins');
  const bodyLimit = config.number('body-limit', 1_048_576);

  // The methods each fixed path is routed for, so that any other method on it is a 405, not a 404;
  // and the surfaces whose refusals take their protocol's shape (RawRoute.errors, refusal-shapes.ts).
  const methodsByPath = new Map<string, Set<string>>();
  const surfaces = new SurfaceMap();
  registerSurfaces(app.server, surfaces);
  const graphqlPath = `${app.prefix}/graphql`;
  app.addHook('onRoute', (route) => {
    route.bodyLimit ??= bodyLimit;
    surfaces.addRoute(route, graphqlPath);
    if ((route.config as { methodNotAllowed?: boolean } | undefined)?.methodNotAllowed || /[:*]/.test(route.url))
      return;
    const methods = methodsByPath.get(route.url) ?? new Set<string>();
    for (const m of [route.method].flat()) if (m !== 'HEAD' && m !== 'OPTIONS') methods.add(m);
    methodsByPath.set(route.url, methods);
  });
  acceptFormsWhereDeclared(app, bodyLimit);
  acceptEmptyJson(app);
  acceptScimJson(app);
  const credentialed = credentialedOriginsOf(kernel);
  const limiter = rateLimiter === undefined ? rateLimiterOf(kernel) : rateLimiter;
  // The scope's onRequest hooks, in this order: the start stamp first, so a refusal is timed too;
  // the security headers (helmet) before the refusals, which carry them; CORS; then, per route,
  // the rate limit (registered before any route of the scope) and the CSRF check.
  const steps: (RequestStep | undefined)[] = [
    metrics?.instrument(app),
    securityHeadersStep(httpsOnlyOf(config)),
    oversizedBodiesStep(bodyLimit),
    refuseNonPreflightOptions,
    refuseEncodedBodies,
  ];
  addRequestSteps(
    app,
    steps.filter((step) => step !== undefined),
  );
  await registerCors(app, {
    allowedOrigins: allowed,
    allowedHeaders: CORS_HEADERS,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    maxAgeSeconds: 600,
    credentialed,
  });
  await registerRateLimit(app, kernel, { limiter });
  // Cookies read and set through @fastify/cookie (context.ts).
  await app.register(cookie);
  addCsrfCheck(app, originAllowList(allowed).any, credentialed);

  app.setErrorHandler((err: FastifyError | ServiceError, request, reply) => {
    const refusal = refusalOfError(err);
    if (refusal) {
      refuse(request, reply, refusal, surfaces);
      return;
    }
    if (err instanceof ServiceError) return sendError(reply, err);
    kernel.logger.error({ err }, 'request failed');
    return reply.code(500).send({ code: 'internal', message: 'internal server error' });
  });
  app.setNotFoundHandler((request, reply) => {
    // A method Fastify does not route at all (TRACE, PROPFIND, LOCK, ...) on a path that exists:
    // a wrong method is a 405, whichever it is.
    const path = request.url.split('?', 1)[0];
    const methods = methodsByPath.get(path);
    if (methods && methods.size > 0) {
      metrics?.countUnmatched(request, 405);
      const allowed = [...methods];
      return refuse(
        request,
        reply,
        {
          kind: 'method_not_allowed',
          message: `method not allowed; use ${allowed.join(' or ')}`,
          headers: { allow: allowed.join(', ') },
        },
        surfaces,
      );
    }
    metrics?.countUnmatched(request, 404);
    return refuse(request, reply, { kind: 'not_found' }, surfaces);
  });

  const ops = [...kernel.operations.values()];
  // REST is mounted only when the gRPC server is enabled.
  if (config.number('grpc-port', 9091) !== 0) {
    registerRest(app, kernel, ops);
    await registerApiReference(app, ops);
  }
  registerRawRoutes(app, kernel);
  await registerGraphql(app, kernel, ops);
}

/**
 * A POST with `Content-Type: application/json` and no body is an empty input, not malformed
 * JSON: many fetch wrappers send the header on every call, and operations such as logout,
 * session or fga/reset take no body. Fastify's parser refuses it
 * (FST_ERR_CTP_EMPTY_JSON_BODY); anything else goes to that same parser, with its refusal of
 * `__proto__` and `constructor.prototype` keys. Only inside Latchkey's own scope, so a host app
 * that embeds the kernel keeps its parser.
 */
function acceptEmptyJson(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '') {
      done(null, undefined);
      return;
    }
    const text = String(body);
    parse(req, text, (err, value) => {
      // Fastify calls any refusal "not valid JSON"; a body that is JSON with a key that could
      // pollute prototypes is told so instead (the gRPC codec says the same).
      if (err && isPoisonedJson(text))
        done(
          new ServiceError(
            'invalid_argument',
            'invalid input: a "__proto__" or "constructor.prototype" key is not allowed',
          ),
          undefined,
        );
      else done(err, value);
    });
  });
}

/**
 * SCIM requests carry JSON as `application/scim+json` (RFC 7644 §3.1); it is parsed as JSON is.
 * Routes that do not read a body ignore it.
 */
function acceptScimJson(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/scim+json', { parseAs: 'string' }, (req, body, done) =>
    parse(req, String(body), done),
  );
}

/** Whether the text is JSON that only the prototype-poisoning rule refuses (a refusal's cold path). */
function isPoisonedJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Request bodies are read as they are sent: a body under a Content-Encoding (gzip, br, ...) is
 * refused with 415 (RFC 9110 §15.5.16), not parsed as it came, compressed bytes as text (a `br`
 * header on a plain body would run the call; a gzipped one would be "not valid JSON").
 */
const refuseEncodedBodies: RequestStep = (request, reply) => {
  const encoding = request.headers['content-encoding'];
  if (encoding === undefined || /^\s*identity\s*$/i.test(encoding)) return true;
  refuse(request, reply, { kind: 'unsupported_encoding', headers: { 'accept-encoding': 'identity' } });
  return false;
};

/**
 * Form-encoded bodies only on the routes that declare them (`RawRoute.form`: the OAuth endpoints,
 * RFC 6749 §4.1.3, and the login page); everywhere else they are 415, as any other body that is
 * not JSON (REST and GraphQL would otherwise take forms as if they were JSON objects). Checked in
 * the parser, which runs only for such bodies: no cost for any other request. Repeated keys
 * become arrays, which the OAuth parameter reader refuses (RFC 6749 §3.1).
 */
function acceptFormsWhereDeclared(app: FastifyInstance, bodyLimit: number): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit },
    (request, body, done) => {
      if ((request.routeOptions.config as { form?: boolean } | undefined)?.form !== true) {
        done(
          Object.assign(new Error('unsupported content type'), {
            code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE',
            statusCode: 415,
          }),
          undefined,
        );
        return;
      }
      done(null, { ...parseQueryString(String(body)) });
    },
  );
}
