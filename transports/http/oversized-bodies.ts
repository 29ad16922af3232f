/**
 * A body declared larger than --body-limit is refused from its headers, before any of it is read:
 * 413 in the surface's shape, then the connection closed (answer-then-close.ts). A body that
 * grows past the limit without declaring its size (chunked) is refused the same way by the body
 * parser, through the error handler.
 *
 * `Expect: 100-continue` (RFC 9110 §10.1.1): Node answers `100 Continue` by itself unless the
 * server listens for 'checkContinue' (Node's documented event). `holdContinueForChecks` listens,
 * so that the request is routed first and this step decides: an oversized one gets the 413
 * instead of the 100 and never sends its body; any other is told to continue here.
 */
import type { Server } from 'node:http';
import { holdAtContinue, releaseContinue } from './answer-then-close.js';
import { refuse } from './refusal-shapes.js';
import type { RequestStep } from './request-steps.js';

export function oversizedBodiesStep(bodyLimit: number): RequestStep {
  return (request, reply) => {
    const length = request.headers['content-length'];
    if (length !== undefined && Number(length) > bodyLimit) {
      refuse(request, reply, { kind: 'body_too_large' });
      return false;
    }
    if (releaseContinue(request.raw)) reply.raw.writeContinue();
    return true;
  };
}

/**
 * Requests that expect `100 Continue` go to the server's request handler without it; the step
 * above writes it once the request is known to fit.
 */
export function holdContinueForChecks(server: Server): void {
  server.on('checkContinue', (req, res) => {
    holdAtContinue(req);
    server.emit('request', req, res);
  });
}
