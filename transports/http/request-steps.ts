/**
 * The per-request work that runs before routing's later phases (the request's start stamp, the
 * default and CORS headers, the per-IP limit, the refusal of encoded bodies), as steps of one
 * onRequest hook instead of one hook each. Why: Fastify runs each hook through its hook runner
 * (a call through `next`, a check of what it was given), and these run on every request: with
 * three hooks merged, a cold HS256 validate_jwt_token took ~1.0k of ~251k main-thread
 * instructions less (bench/profiling/callgrind-requests.ts). A step answers the
 * request itself when it refuses it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** One step: true when the request goes on, false when the step has answered it (a refusal). */
export type RequestStep = (request: FastifyRequest, reply: FastifyReply) => boolean;

/** Runs `steps` in order in one onRequest hook of `app`; the first that answers ends the request. */
export function addRequestSteps(app: FastifyInstance, steps: readonly RequestStep[]): void {
  const list = [...steps];
  app.addHook('onRequest', (request, reply, done) => {
    for (let i = 0; i < list.length; i++) if (!list[i](request, reply)) return;
    done();
  });
}
