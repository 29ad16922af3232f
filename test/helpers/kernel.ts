/**
 * Boots a real kernel for tests: real storage (SQLite temp file unless a DbTarget is given),
 * a memory store of the chosen backend, and a Config built from flags over the plugins' own
 * defaults. `close()` shuts the kernel and removes what the helper created.
 */
import { Config, withDefaults, type FlagValue } from '../../core/config.js';
import { RequestContext, type Principal, type RequestContextInit } from '../../core/context.js';
import { Kernel } from '../../core/kernel.js';
import type { Logger } from '../../core/logger.js';
import type { AnyPlugin } from '../../core/plugin.js';
import { openMemoryStore, openStorage } from '../../storage/index.js';
import { freshRedisUrl, sqliteTarget, type DbTarget } from './databases.js';

export type TestMemoryBackend = 'process' | 'database' | 'redis';

export interface BootTestKernelOptions {
  plugins: readonly AnyPlugin[];
  /** Config flags; they win over the plugins' declared defaults and the database target's. */
  flags?: Record<string, FlagValue | undefined>;
  /** Where the data lives; default a fresh SQLite file, removed by `close()`. */
  database?: DbTarget;
  /** Default `process`. `redis` uses a fresh key namespace, emptied by `close()`. */
  memory?: TestMemoryBackend;
  logger?: Logger;
}

export interface TestKernel {
  kernel: Kernel;
  config: Config;
  close(): Promise<void>;
}

export async function bootTestKernel(options: BootTestKernelOptions): Promise<TestKernel> {
  const owned = options.database ? undefined : await sqliteTarget();
  const target = options.database ?? owned!;
  const memory = options.memory ?? 'process';
  const memoryFlags: Record<string, FlagValue> =
    memory === 'redis' ? { 'redis-url': freshRedisUrl() } : { 'memory-store': memory };
  const config = withDefaults(Kernel.flagsOf(options.plugins), {
    ...target.flags,
    ...memoryFlags,
    ...options.flags,
  });
  let kernel: Kernel;
  try {
    kernel = await Kernel.boot({
      plugins: options.plugins,
      config,
      openStorage,
      openMemoryStore,
      logger: options.logger,
    });
  } catch (err) {
    await owned?.dispose();
    throw err;
  }
  let closed = false;
  return {
    kernel,
    config,
    close: async () => {
      if (closed) return;
      closed = true;
      if (memory === 'redis') await kernel.memory.deletePrefix('').catch(() => 0);
      await kernel.close();
      await owned?.dispose();
    },
  };
}

export interface TestContextInit extends Partial<Omit<RequestContextInit, 'kernel'>> {
  /** Pre-set principal (skips nothing: `invoke` still runs the access check and overwrites it). */
  principal?: Principal;
}

/** A RequestContext for direct `kernel.invoke` calls (transport `internal`, ip 127.0.0.1). */
export function testContext(kernel: Kernel, init: TestContextInit = {}): RequestContext {
  const { principal, ...rest } = init;
  const headers: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(rest.headers ?? {})) headers[k.toLowerCase()] = v;
  const ctx = new RequestContext({
    transport: 'internal',
    ip: '127.0.0.1',
    userAgent: headers['user-agent'],
    ...rest,
    headers,
    kernel,
  });
  if (principal) ctx.principal = principal;
  return ctx;
}

export { Config };
