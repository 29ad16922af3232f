/**
 * The memory store: short-lived state with TTLs and atomic consume/increment.
 * Sessions, OTPs, magic links, OAuth state, DNS challenges, rate-limit and lockout counters.
 * Backends live in storage/memory/: Redis (shared by every node), the main database (durable),
 * and in-process (tests and single-node speed). All pass test/storage/memory/shared-suite.ts.
 */
export interface MemoryStore {
  readonly backend: 'redis' | 'database' | 'process';
  get(key: string): Promise<string | null>;
  /** Stores a value for ttlMs milliseconds (replacing any). */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Stores only when the key is absent or expired; true when this call stored it. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  /**
   * Stores only when the key holds a live value; true when this call replaced it. A key deleted
   * meanwhile stays deleted (sessions: an extension racing a logout must not bring it back).
   */
  replace(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** Atomically reads and deletes: of two concurrent consumers only one gets the value. */
  consume(key: string): Promise<string | null>;
  delete(key: string): Promise<void>;
  /**
   * Atomically adds one and returns the new count. The TTL starts with the first increment
   * of a window and is not extended by later ones (fixed windows for limits and lockouts).
   */
  increment(key: string, ttlMs: number): Promise<number>;
  /** Removes every key with the prefix (for example all sessions of one user). */
  deletePrefix(prefix: string): Promise<number>;
  /** Keys with the prefix that have not expired. */
  keys(prefix: string): Promise<string[]>;
  /**
   * True when a store that lives outside this process and the main database (Redis) answers;
   * `/healthz` and `/readyz` fail while it does not. Stores inside the process or the database
   * leave it out: the database ping covers them.
   */
  ping?(): Promise<boolean>;
  close(): Promise<void>;
}
