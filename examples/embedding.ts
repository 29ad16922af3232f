/**
 * Embedding: Latchkey mounted under /auth inside a host Fastify app that keeps its own routes and
 * its own error handler. The host reaches the kernel through the one decorator, `app.latchkey`.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { Config } from '../core/config.js';
import type { AnyPlugin } from '../core/plugin.js';
import { latchkey } from '../transports/http/embed.js';

export async function buildHostApp(plugins: readonly AnyPlugin[], config: Config): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  // The host's own error envelope, which Latchkey must not replace.
  app.setErrorHandler((err, _req, reply) => reply.code(500).send({ host_error: (err as Error).message }));
  app.get('/', async () => ({ app: 'host' }));
  app.get('/boom', async () => {
    throw new Error('host failure');
  });
  await app.register(latchkey, { prefix: '/auth', plugins, config });
  return app;
}
