/**
 * Reads kept in process while a SQLite file is unchanged (core/storage.ts ChangeStamp; the
 * rules are in storage/sqlite-change-stamp.ts): a value read under a stamp is answered again
 * only while the stamp is the same, that is while nothing at all has been committed to the file
 * by any connection of any process, except writes the stamp's own-write rule lets through (the
 * memory store's single-key writes, which never touch the tables kept here).
 *
 * The order that keeps it exact: the stamp is taken before the read, and the value is filed
 * under that stamp. A commit during the read moves the stamp, so the value is never answered.
 * At most `max` values are kept; the oldest goes first.
 */
import type { ChangeStamp } from './storage.js';

export class StampedReads<V> {
  private readonly kept = new Map<string, V>();
  private stampOfKept = -1;

  constructor(
    private readonly stamp: ChangeStamp,
    private readonly max: number,
  ) {}

  /** The kept value for `key` while the file is unchanged, else `load()`'s, kept when `keep` says so. */
  async read(key: string, load: () => Promise<V>, keep: (value: V) => boolean): Promise<V> {
    const stamp = await this.stamp.shared();
    if (stamp !== undefined && stamp === this.stampOfKept) {
      const hit = this.kept.get(key);
      if (hit !== undefined) return hit;
    }
    const value = await load();
    if (stamp !== undefined && keep(value)) this.file(key, value, stamp);
    return value;
  }

  /** Stamps only grow: an older one is stale already; a newer one makes everything kept stale. */
  private file(key: string, value: V, stamp: number): void {
    if (stamp < this.stampOfKept) return;
    if (stamp > this.stampOfKept) {
      this.kept.clear();
      this.stampOfKept = stamp;
    }
    this.kept.delete(key);
    if (this.kept.size >= this.max) this.kept.delete(this.kept.keys().next().value as string);
    this.kept.set(key, value);
  }
}
