/**
 * What every call passes before its handler, as a grpc-js server interceptor:
 * - the per-client-IP limit shared with the HTTP transport: over it, the call
 *   is RESOURCE_EXHAUSTED with `retry-after` metadata in seconds, REST's 429 and Retry-After;
 * - a read timeout for unary calls: a request that has not arrived in full within the time is
 *   DEADLINE_EXCEEDED whatever its deadline, so a peer that opens calls and trickles their bytes
 *   cannot hold them open for good (the HTTP transport bounds the same with Node's request timeout).
 */
import {
  Metadata,
  ServerInterceptingCall,
  status as grpcStatus,
  type ServerInterceptingCallInterface,
  type ServerInterceptor,
  type ServerMethodDefinition,
} from '@grpc/grpc-js';
import { clientIp, peerAddress, type Cidr } from './client-ip.js';

/**
 * The limiter the HTTP transport counts with: the seconds until the client may try again, or 0;
 * a limiter in a shared store may answer later.
 */
export interface CallRateLimiter {
  hit(key: string): number | Promise<number>;
}

export interface AdmissionOptions {
  limiter: CallRateLimiter | null;
  /** The client's key in the limiter (the HTTP transport's, so both count as one budget). */
  keyOf(ip: string): string;
  proxies: readonly Cidr[];
  readTimeoutMs: number;
}

export function admissionInterceptor(options: AdmissionOptions): ServerInterceptor {
  const { limiter, keyOf, proxies, readTimeoutMs } = options;
  return (method: ServerMethodDefinition<unknown, unknown>, call: ServerInterceptingCallInterface) => {
    let readTimer: NodeJS.Timeout | undefined;
    const stopTimer = () => clearTimeout(readTimer);
    return new ServerInterceptingCall(call, {
      start(next) {
        if (!method.requestStream) {
          readTimer = setTimeout(
            () =>
              call.sendStatus({
                code: grpcStatus.DEADLINE_EXCEEDED,
                details: `request not received within ${readTimeoutMs} ms`,
              }),
            readTimeoutMs,
          );
        }
        next({
          onReceiveMetadata(metadata, forward) {
            if (!limiter) return forward(metadata);
            const answer = (retry: number) => {
              if (retry === 0) return forward(metadata);
              stopTimer();
              const trailers = new Metadata();
              trailers.set('retry-after', String(retry));
              call.sendStatus({
                code: grpcStatus.RESOURCE_EXHAUSTED,
                details: 'too many requests',
                metadata: trailers,
              });
            };
            const retry = limiter.hit(keyOf(callerIp(call, metadata, proxies)));
            if (typeof retry === 'number') return answer(retry);
            // A store that cannot answer lets the call through: the limit protects, it does not gate.
            retry.then(answer, () => answer(0));
          },
          onReceiveHalfClose(forward) {
            stopTimer();
            forward();
          },
          onCancel() {
            stopTimer();
          },
        });
      },
      sendStatus(status, forward) {
        stopTimer();
        forward(status);
      },
    });
  };
}

function callerIp(call: ServerInterceptingCallInterface, metadata: Metadata, proxies: readonly Cidr[]): string {
  const forwarded = metadata.get('x-forwarded-for');
  return clientIp(
    peerAddress(call.getPeer()),
    forwarded.length > 0 ? forwarded.map(String).join(', ') : undefined,
    proxies,
  );
}
