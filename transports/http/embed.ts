/**
 * Embedding: `app.register(latchkey, { prefix, plugins, config })` mounts a kernel
 * inside a host Fastify app. It adds one decorator (`latchkey`, the kernel) and nothing global:
 * its hooks, error handler and 404 handler live in its own encapsulated context under the
 * prefix, and the kernel closes with the host.
 */
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../core/config.js';
import { Kernel } from '../../core/kernel.js';
import type { AnyPlugin } from '../../core/plugin.js';
import { openMemoryStore, openStorage } from '../../storage/index.js';
import { mountKernel } from './app.js';

export interface LatchkeyPluginOptions {
  /** Mount path, e.g. `/auth`; set `--url` to the public address including it. */
  prefix?: string;
  plugins: readonly AnyPlugin[];
  config: Config;
}

declare module 'fastify' {
  interface FastifyInstance {
    latchkey: Kernel;
  }
}

const latchkeyPlugin: FastifyPluginAsync<LatchkeyPluginOptions> = async (host: FastifyInstance, opts) => {
  const kernel = await Kernel.boot({
    plugins: opts.plugins,
    config: opts.config,
    openStorage,
    openMemoryStore,
    logger: host.log,
  });
  host.decorate('latchkey', kernel);
  host.addHook('onClose', async () => kernel.close());
  await host.register(async (scope) => mountKernel(scope, { kernel }), { prefix: opts.prefix ?? '' });
};

export const latchkey = fp(latchkeyPlugin, { name: 'latchkey', fastify: '5.x' });
