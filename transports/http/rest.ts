/**
 * The REST projection: one route per operation under /v1, the body is the
 * flat input object, the response the bare output. A path answers 405 `method_not_allowed` for
 * any other method (methods Fastify does not route, such as TRACE, get it from the not-found
 * handler: app.ts). The body is JSON only: a form-encoded one is 415, as every other type that is
 * not JSON (forms are parsed only on routes that declare them: app.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kernel } from '../../core/kernel.js';
import { ServiceError } from '../../core/errors.js';
import type { CompiledOperation } from '../../core/operations.js';
import { applyEffects, contextFromRequest } from './context.js';
import { sendError } from './errors.js';
import { noStore } from './security-headers.js';

const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export function registerRest(app: FastifyInstance, kernel: Kernel, ops: readonly CompiledOperation[]): void {
  const byPath = new Map<string, CompiledOperation[]>();
  for (const op of ops) {
    if (!op.restPath) continue;
    byPath.set(op.restPath, [...(byPath.get(op.restPath) ?? []), op]);
  }
  for (const [path, pathOps] of byPath) {
    for (const op of pathOps) {
      const constant = op.def.constantOutput === true;
      let serialized: string | undefined;
      // Explicit promises, not an async function: this runs for every REST call, and an async
      // frame adds its own promise and microtask to each (bench/profiling/callgrind-requests.ts).
      // What the first callback throws (nothing it calls throws in practice) reaches the route
      // handler's catch below, which hands it to Fastify's error handler.
      const answer = (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
        const ctx = contextFromRequest(kernel, request, 'rest');
        const input = op.restMethod === 'GET' ? (op.def.input ? request.query : undefined) : (request.body ?? {});
        // An answer about its caller (a profile, a session, tokens) is never stored by a cache on
        // the way (RFC 6749 §5.1 asks it of every response carrying tokens; RFC 9111 §5.2.2.5),
        // errors included. Constant answers (meta) may be.
        if (!constant) noStore(reply);
        return kernel.invokeCompiled(op, ctx, input).then(
          (out) => {
            applyEffects(ctx, reply);
            if (!constant) {
              reply.send(out);
              return;
            }
            // A text made once for a constant answer goes as it is, with the type Fastify gives its own JSON.
            reply.type('application/json; charset=utf-8').send((serialized ??= JSON.stringify(out)));
          },
          (err: unknown) => {
            applyEffects(ctx, reply);
            sendError(reply, err as ServiceError);
          },
        );
      };
      app.route({
        method: op.restMethod,
        url: path,
        // Not an async handler: Fastify would resolve its promise with the reply, a thenable,
        // and a reply whose write is held to the end of the turn (held-responses.ts) is not yet
        // "sent", so Reply.then attached stream-end listeners to every response (~2% of a cold
        // bearer request's CPU in a profile). Returning nothing leaves the reply to `answer`.
        handler: (request, reply) => {
          void answer(request, reply).catch((err: unknown) => reply.send(err));
        },
      });
    }
    const used = new Set<string>(pathOps.map((o) => o.restMethod));
    // HEAD comes with GET in Fastify; everything else on this path is a 405.
    const others = ALL_METHODS.filter((m) => !used.has(m));
    if (others.length > 0) {
      app.route({
        method: others,
        url: path,
        config: { methodNotAllowed: true },
        handler: async (_request, reply) => sendMethodNotAllowed(reply, [...used]),
      });
    }
  }
}

/** 405 in the envelope with the methods the path takes (RFC 9110 §15.5.6). */
export function sendMethodNotAllowed(reply: FastifyReply, methods: readonly string[]): FastifyReply {
  return reply
    .code(405)
    .header('allow', methods.join(', '))
    .send({ code: 'method_not_allowed', message: `method not allowed; use ${methods.join(' or ')}` });
}
