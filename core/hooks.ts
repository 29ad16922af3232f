/**
 * Typed domain hooks: synchronous-in-order extension points inside an operation (unlike events,
 * a hook may veto by throwing a ServiceError, or enrich a payload). Plugins add hook names by
 * augmenting `HookPayloads`:
 *
 *   declare module '../../core/hooks.js' { interface HookPayloads { 'user.beforeCreate': {...} } }
 */
import type { AuditRecord } from './audit.js';

export interface HookPayloads {
  'kernel.ready': { plugins: string[] };
  /** An audited action happened (core/audit.ts); the audit log writes it before the call answers. */
  'audit.record': AuditRecord;
}

export type HookName = keyof HookPayloads;
export type HookHandler<K extends HookName> = (payload: HookPayloads[K]) => void | Promise<void>;

export class HookBus {
  private readonly handlers = new Map<HookName, HookHandler<HookName>[]>();

  on<K extends HookName>(name: K, handler: HookHandler<K>): void {
    const list = this.handlers.get(name) ?? [];
    list.push(handler as unknown as HookHandler<HookName>);
    this.handlers.set(name, list);
  }

  has(name: HookName): boolean {
    return (this.handlers.get(name)?.length ?? 0) > 0;
  }

  /** Runs handlers in plugin order; the first throw stops the chain and reaches the caller. */
  async run<K extends HookName>(name: K, payload: HookPayloads[K]): Promise<void> {
    for (const h of this.handlers.get(name) ?? []) await (h as unknown as HookHandler<K>)(payload);
  }
}
