/**
 * Liveness and readiness: `/healthz` answers from a database ping and, with a shared memory store
 * (Redis), that store's ping, both at once and each with its own time limit; `/readyz` also turns
 * not-ready while the server shuts down.
 */
import type { Kernel } from '../../core/kernel.js';
import { definePlugin } from '../../core/plugin.js';

/** The main database and the memory store (when it lives outside the process) both answer. */
async function dependenciesAnswer(kernel: Kernel): Promise<boolean> {
  const memory = kernel.memory;
  const [db, store] = await Promise.all([kernel.storage.ping(), memory.ping ? memory.ping() : true]);
  return db && store;
}

export interface HealthService {
  /** True once the node started shutting down. */
  readonly draining: boolean;
  /** Marks the node as draining: /readyz answers 503 from now on. */
  drain(): void;
}

declare module '../../core/services.js' {
  interface Services {
    health: HealthService;
  }
}

export const healthPlugin = definePlugin<HealthService>({
  name: 'health',
  description: 'Liveness (/healthz) and readiness (/readyz).',
  routes: [
    {
      method: 'GET',
      path: '/healthz',
      handler: async (_req, ctx) =>
        (await dependenciesAnswer(ctx.kernel))
          ? { status: 200, body: { status: 'ok' } }
          : { status: 503, body: { status: 'unhealthy' } },
    },
    {
      method: 'GET',
      path: '/readyz',
      handler: async (_req, ctx) => {
        const ok = !ctx.kernel.service('health').draining && (await dependenciesAnswer(ctx.kernel));
        return ok ? { status: 200, body: { status: 'ready' } } : { status: 503, body: { status: 'not ready' } };
      },
    },
  ],
  setup() {
    const state = {
      draining: false,
      drain() {
        state.draining = true;
      },
    };
    return state;
  },
});
