/**
 * Relaxed writes on a SQLite file (core/storage.ts StatementOptions.relaxed): committed with
 * `PRAGMA synchronous = NORMAL`, so the commit does not wait for the disk, and made durable by
 * one `fsync` of the write-ahead log at most RELAXED_SYNC_MS later, off the event loop.
 *
 * Why: every login stores a session, and with the default `synchronous = FULL` each of those
 * commits ends in an `fsync` of the WAL. On this project's 2-core VMs that was the largest single
 * cost of a login besides the password hash: interleaved runs of this build and the one before
 * (4 rounds of 6 s, wrk with 8 in flight) gave 82.3% of the hash ceiling with an
 * `fsync` per session against 87.6% without (a bare login route over the same hash workers:
 * 90.3%), the server's main thread 2.41-2.78 against 2.14-2.52 ms per login and its other
 * threads ~0.6 ms less. Handing each `fsync` to libuv's pool and answering after it (a group
 * commit that keeps every login durable when answered) measured worse, 73%: the flush itself,
 * not where it runs, is the cost. (Earlier sessions measured `synchronous = NORMAL` as no gain:
 * the knex pool replaces its SQLite connection once it is 10 s old and the new one came back
 * with FULL, so those runs compared FULL with FULL. Here the pragma is set around the one
 * statement, on whichever connection runs it.)
 *
 * What it risks, and why that is acceptable: SQLite in WAL mode stays consistent under NORMAL,
 * and a commit survives a crash of the process at once (it is in the operating system's page
 * cache); only an operating-system crash or power cut within the second can take it back. Only
 * writes that grant (new sessions, refresh-token records, counters) are relaxed; whatever
 * revokes (a logout, a revoked session, a spent code or refresh token) and every account write
 * keep FULL, and their `fsync` also makes every relaxed commit before them durable. Redis, the
 * other shared session store, keeps at most a second in its default `appendfsync everysec`.
 */
import { open } from 'node:fs/promises';

/** At most this long between a relaxed commit and the `fsync` that makes it durable. */
export const RELAXED_SYNC_MS = 1_000;

export class WalSync {
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  /** Relaxed commits not yet covered by a finished `fsync`. */
  private pending = 0;
  /** A flush failed: relaxed writes commit with FULL from then on, so the error reaches a caller. */
  private failed = false;
  /** Finished flushes (tests read it). */
  flushes = 0;

  constructor(private readonly walPath: string) {}

  /** Relaxed commits that no finished flush covers yet. */
  get unsynced(): number {
    return this.pending;
  }

  /** Whether a write asked to be relaxed may be. */
  get available(): boolean {
    return !this.failed;
  }

  /** A relaxed commit happened: schedule the flush that covers it. */
  committed(): void {
    this.pending++;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, RELAXED_SYNC_MS);
    // A process that exits loses nothing by it: the commit is in the page cache already.
    this.timer.unref();
  }

  /** Makes every relaxed commit so far durable. */
  async flush(): Promise<void> {
    if (this.flushing) await this.flushing.catch(() => {});
    if (this.pending === 0) return;
    const covered = this.pending;
    this.flushing = this.syncWal();
    try {
      await this.flushing;
      this.pending -= covered;
      this.flushes++;
    } catch {
      this.failed = true;
    } finally {
      this.flushing = undefined;
    }
  }

  private async syncWal(): Promise<void> {
    // Opened per flush, so a log SQLite deleted and made anew (after every connection closed) is
    // the one synced. No log at all: it was checkpointed into the database, which SQLite synced.
    const file = await open(this.walPath, 'r').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (!file) return;
    try {
      await file.sync();
    } finally {
      await file.close();
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
