/**
 * The in-process memory store: a Map with expiry, for tests and single-node speed.
 * JavaScript runs one callback at a time, so every method body below is atomic as long as it
 * does not await. Expired entries are dropped when touched, and a sweep timer (unref'd, so it
 * never keeps the process alive) clears the ones nobody touches again.
 */
import type { MemoryStore } from '../../core/memory-store.js';

const SWEEP_INTERVAL_MS = 30_000;

interface Entry {
  value: string;
  expiresAt: number;
}

export interface ProcessMemoryOptions {
  now?: () => number;
  sweepIntervalMs?: number;
}

export class ProcessMemoryStore implements MemoryStore {
  readonly backend = 'process' as const;
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(options: ProcessMemoryOptions = {}) {
    this.now = options.now ?? Date.now;
    this.sweeper = setInterval(() => this.sweep(), options.sweepIntervalMs ?? SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  private live(key: string): Entry | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }

  /** Removes every expired entry; returns how many went. */
  sweep(): number {
    const now = this.now();
    let n = 0;
    for (const [k, e] of this.entries) {
      if (e.expiresAt <= now) {
        this.entries.delete(k);
        n++;
      }
    }
    return n;
  }

  async get(key: string): Promise<string | null> {
    return this.live(key)?.value ?? null;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    this.entries.set(key, { value, expiresAt: this.now() + ttl(ttlMs) });
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    if (this.live(key)) return false;
    this.entries.set(key, { value, expiresAt: this.now() + ttl(ttlMs) });
    return true;
  }

  async replace(key: string, value: string, ttlMs: number): Promise<boolean> {
    if (!this.live(key)) return false;
    this.entries.set(key, { value, expiresAt: this.now() + ttl(ttlMs) });
    return true;
  }

  async consume(key: string): Promise<string | null> {
    const e = this.live(key);
    if (!e) return null;
    this.entries.delete(key);
    return e.value;
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }

  async increment(key: string, ttlMs: number): Promise<number> {
    const e = this.live(key);
    if (!e) {
      this.entries.set(key, { value: '1', expiresAt: this.now() + ttl(ttlMs) });
      return 1;
    }
    // Fixed window: the expiry stays where the first increment put it.
    const next = (Number.parseInt(e.value, 10) || 0) + 1;
    e.value = String(next);
    return next;
  }

  async deletePrefix(prefix: string): Promise<number> {
    let n = 0;
    for (const k of [...this.entries.keys()]) {
      if (k.startsWith(prefix)) {
        if (this.live(k)) n++;
        this.entries.delete(k);
      }
    }
    return n;
  }

  async keys(prefix: string): Promise<string[]> {
    const out: string[] = [];
    for (const k of [...this.entries.keys()]) if (k.startsWith(prefix) && this.live(k)) out.push(k);
    return out;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.entries.clear();
  }
}

/** A TTL must be a positive number of milliseconds; anything else is a programming error. */
export function ttl(ms: number): number {
  if (!Number.isFinite(ms) || ms <= 0)
    throw new RangeError(`memory store TTL must be a positive number of milliseconds, got ${ms}`);
  return Math.ceil(ms);
}
