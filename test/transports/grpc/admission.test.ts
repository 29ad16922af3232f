/**
 * The per-client-IP limit on gRPC: one budget with the HTTP transport's
 * limiter, RESOURCE_EXHAUSTED with `retry-after` metadata past it, before the operation runs; a
 * limiter that answers later (a shared store) is waited for.
 */
import t from 'tap';
import { metaPlugin } from '../../../plugins/meta/index.js';
import { startGrpcServer } from '../../../transports/grpc/server.js';
import { IpRateLimiter } from '../../../transports/http/rate-limit.js';
import { grpcClient, type GrpcCallError } from '../../helpers/grpc-client.js';
import { bootTestKernel } from '../../helpers/kernel.js';

const booted = await bootTestKernel({ plugins: [metaPlugin] });
const { kernel } = booted;
const ops = [...kernel.operations.values()];
t.teardown(() => booted.close());

async function refusal(p: Promise<unknown>): Promise<GrpcCallError> {
  try {
    await p;
  } catch (err) {
    return err as GrpcCallError;
  }
  throw new Error('the call succeeded but was expected to be refused');
}

t.test(
  'past the limit a call is RESOURCE_EXHAUSTED with retry-after, and HTTP counts in the same budget',
  async (t) => {
    const limiter = new IpRateLimiter(3);
    const server = await startGrpcServer(kernel, ops, { host: '127.0.0.1', port: 0, rateLimiter: limiter });
    const client = grpcClient(`127.0.0.1:${server.port}`, ops);
    t.teardown(async () => {
      client.close();
      await server.close();
    });
    // One request of the budget spent over HTTP by the same client (the limiter's key is the IP).
    t.equal(limiter.hit('127.0.0.1'), 0);
    await client.call('meta');
    await client.call('meta');
    const err = await refusal(client.call('meta'));
    t.equal(err.grpcStatus, 8);
    t.equal(err.message, 'too many requests');
    t.ok(Number(err.metadata['retry-after']?.[0]) >= 1, 'retry-after in seconds');
  },
);

t.test('a limiter that answers later is waited for', async (t) => {
  const asked: string[] = [];
  const rateLimiter = {
    hit: async (key: string) => {
      asked.push(key);
      await new Promise((resolve) => setTimeout(resolve, 20));
      return asked.length > 1 ? 30 : 0;
    },
  };
  const server = await startGrpcServer(kernel, ops, { host: '127.0.0.1', port: 0, rateLimiter });
  const client = grpcClient(`127.0.0.1:${server.port}`, ops);
  t.teardown(async () => {
    client.close();
    await server.close();
  });
  t.ok((await client.call('meta')).response, 'the first call passes');
  const err = await refusal(client.call('meta'));
  t.equal(err.grpcStatus, 8);
  t.strictSame(err.metadata['retry-after'], ['30']);
  t.strictSame(asked, ['127.0.0.1', '127.0.0.1']);
});
