/**
 * A process-local cache for hot reads: at most `max` entries, the oldest insertion dropped
 * first, each entry good until its own deadline (milliseconds, the caller's clock).
 *
 * Why not lru-cache: with per-entry TTLs it kept timing arrays and timers of its own, and its get
 * and set were ~6% of a cold bearer request's CPU (CPU profile of the cold `profile` bench,
 * 2026-11-27); this is one Map lookup. Oldest-first instead of least-recently-used costs a hot
 * entry one extra miss per `max` insertions, which for the token and user caches is one
 * verification or one read.
 */
export class ExpiringCache<K, V> {
  private readonly entries = new Map<K, { value: V; until: number }>();
  /**
   * Keys in insertion order, as a ring: the slot written next holds the oldest. (Not the Map's
   * own order: V8 leaves a hole per deleted entry at the front, and `keys().next()` walks them
   * all, which made this cache slower than lru-cache under steady eviction.)
   */
  private readonly ring: (K | undefined)[];
  private next = 0;

  constructor(private readonly max: number) {
    this.ring = new Array<K | undefined>(max);
  }

  /** The value while `now` is before its deadline; an expired entry is dropped. */
  get(key: K, now: number): V | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    if (now < e.until) return e.value;
    this.entries.delete(key);
    return undefined;
  }

  /**
   * A key set again keeps its place in the order. A key deleted and set again has two slots; the
   * older one drops it early, which for a cache is only a miss.
   */
  set(key: K, value: V, until: number): void {
    const m = this.entries;
    const e = m.get(key);
    if (e !== undefined) {
      e.value = value;
      e.until = until;
      return;
    }
    const oldest = this.ring[this.next];
    if (oldest !== undefined) m.delete(oldest);
    this.ring[this.next] = key;
    this.next = (this.next + 1) % this.max;
    m.set(key, { value, until });
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
