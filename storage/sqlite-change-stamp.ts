/**
 * Has a SQLite database file changed since an earlier look? Only SQLite's documented WAL-index
 * format is read (https://www.sqlite.org/walformat.html): the header's `iVersion`, `iChange` and
 * `isInit` fields and its two copies; nothing of SQLite's or a driver's internals. Answered for
 * two system calls instead of a query, so that hot reads (the session behind every bearer token)
 * can be kept in process and still never outlive a commit, whichever process made it.
 *
 * How: in WAL mode (storage/open-storage.ts turns it on for files) every commit, by any
 * connection of any process, rewrites the wal-index header at the start of the `-shm` file
 * before the commit returns: two identical 48-byte copies holding a transaction counter
 * (`iChange`), the last valid WAL frame (`mxFrame`), the WAL salts and a checksum
 * (https://www.sqlite.org/walformat.html, "The WAL-Index Header"; SQLite's own readers compare the
 * two copies the same way to tell a header being written). A header unlike the last one seen
 * means the database changed; a header that cannot be read, or is not in that format, means
 * "cannot tell", and callers then read the database as they would without this.
 *
 * Why a cache needs it: a cold SQLite read cost ~40-50 µs of CPU per request in the token bench
 * (the read itself is ~6 µs in a tight loop; between HTTP requests its code and data are out of
 * the CPU's caches), more than the bare route it is compared with costs in all.
 *
 * The order that makes it safe: a caller takes the stamp BEFORE it reads the database and files
 * what it read under that stamp. A commit after the stamp was taken changes the header, so the
 * next look gives a new stamp and the entry is not used again, even when the read itself already
 * saw that commit.
 *
 * Two more rules:
 * - Writes of this process also count through `noteWrite`, which the writers call once their
 *   commit is done: what this process itself changed never depends on reading the file.
 * - Once the `-shm` file at the path has been replaced by another one (deleted and made anew,
 *   by an operator or by SQLite after every connection closed), this process's connection may
 *   still write the old, unlinked one, whose header nobody reads any more. From then on the
 *   stamp answers "cannot tell", for good.
 *
 * How often the path is looked at: while this process holds the database open, SQLite itself
 * never deletes or replaces the `-shm` file (only the last connection to close does), so a
 * replacement is an operator's doing and already breaks SQLite's own locking between the
 * processes. The path is therefore checked (a `stat`) at most every `REPLACEMENT_CHECK_MS`, not
 * on every call: on the bearer path that `stat` was a tenth of the server's CPU per request
 * (a CPU profile of the cold `profile` bench, 2026-11-27). The header itself is read every time.
 *
 * Reads shared (`shared()`): the header read is one `pread`, and on this project's VMs a system
 * call costs more than a whole cached session lookup (16% of the server's CPU on the cold
 * `profile` bench, the same day). Callers that ask while a read is pending share it: the read
 * runs in the event loop's check phase (setImmediate), after every caller that joined it. That
 * is as safe as a read of one's own: a caller joins before the read happens, so whatever its
 * request depends on (a logout the client saw answered before sending it) was committed before
 * the request arrived, hence before the read. A caller that comes after the read starts the next
 * one. Under load, one read serves every request of an event-loop turn.
 *
 * Own writes (`beforeOwnWrite`/`afterOwnWrite`): a single autocommit statement of this process
 * that writes one key need not make every kept read stale. SQLite adds one to the header's
 * change counter (`iChange`, bytes 8-11) at every commit (walformat.html, "The WAL-Index
 * Header": "incremented with each transaction"). So when the
 * header just before the statement is the one last looked at (nothing committed since), and just
 * after it the counter is exactly one more (or the header is unchanged when the statement changed
 * no row), that commit was the only one: only its key is stale. The listeners (the memory
 * stores) drop that key and keep the rest, and the header after is taken as seen. A statement
 * that changed rows but is not the only commit, any other change, or a header that cannot be
 * read makes everything stale, as `noteWrite` does. Why it matters: before, every login, refresh
 * or logout anywhere made every cached session stale, and a login read two keys again right after
 * its own session write.
 */
import { fstatSync, openSync, closeSync, readSync, statSync } from 'node:fs';

/** The wal-index format number SQLite has written since 3.7.0. */
const WAL_INDEX_VERSION = 3007000;
const HEADER = 48;
/** At most this long between two looks at the `-shm` path (see the header comment). */
export const REPLACEMENT_CHECK_MS = 100;

/** The header just before an own write (see "Own writes"). */
export interface OwnWriteMark {
  readonly header: Buffer;
}

const changeCounter = (header: Buffer): number => header.readUInt32LE(8);

export class SqliteChangeStamp {
  /** Told the key of an own write that was the only commit (see "Own writes"). */
  private readonly forgetters = new Set<(key: string) => void>();
  private fd: number | undefined;
  private ino = -1;
  /** The file was replaced after it was first read: no answer from here on. */
  private replaced = false;
  private readonly buf = Buffer.alloc(2 * HEADER);
  private readonly last = Buffer.alloc(HEADER);
  private generation = 0;

  /** When the path was last looked at (performance.now(); a clock read, not a system call). */
  private checkedAt = -Infinity;

  /**
   * `databasePath`: the database file (its `-shm` file is read). `checkEveryMs`: how long a look
   * at the path stays good (tests pass 0 to look on every call).
   */
  constructor(
    databasePath: string,
    private readonly checkEveryMs = REPLACEMENT_CHECK_MS,
  ) {
    this.shmPath = `${databasePath}-shm`;
  }

  private readonly shmPath: string;

  /**
   * A number that is the same as at an earlier call only if nothing was committed in between;
   * undefined when that cannot be told (no `-shm` file, an unknown format, a header being
   * written at this moment).
   */
  current(): number | undefined {
    if (this.replaced) return undefined;
    try {
      if (this.fd !== undefined && performance.now() - this.checkedAt < this.checkEveryMs)
        return this.readHeader(this.fd);
      const st = statSync(this.shmPath, { throwIfNoEntry: false });
      // Gone or another file since it was first read: see the header comment. (The file read
      // stays allocated while it is open here, so a new file always has another inode.)
      if (this.ino !== -1 && (!st || st.ino !== this.ino)) {
        this.replaced = true;
        this.release();
        return undefined;
      }
      if (!st) return undefined;
      if (this.fd === undefined) {
        this.fd = openSync(this.shmPath, 'r');
        const ino = fstatSync(this.fd).ino;
        if (ino !== st.ino) {
          this.replaced = true;
          this.release();
          return undefined;
        }
        this.ino = ino;
        this.generation++;
      }
      this.checkedAt = performance.now();
      return this.readHeader(this.fd);
    } catch {
      this.release();
      return undefined;
    }
  }

  /** Reads the header into `buf`; false when it is short, in another format, or being written. */
  private readValid(fd: number): boolean {
    const b = this.buf;
    if (readSync(fd, b, 0, 2 * HEADER, 0) < 2 * HEADER) return false;
    // `isInit` (byte 12) is set once the header is valid; the two copies differ while a commit writes them.
    return b.readUInt32LE(0) === WAL_INDEX_VERSION && b[12] === 1 && b.compare(b, 0, HEADER, HEADER, 2 * HEADER) === 0;
  }

  /** The stamp from the header in the open file (one `pread`). */
  private readHeader(fd: number): number | undefined {
    try {
      if (!this.readValid(fd)) return undefined;
      const b = this.buf;
      if (b.compare(this.last, 0, HEADER, 0, HEADER) !== 0) {
        b.copy(this.last, 0, 0, HEADER);
        this.generation++;
      }
      return this.generation;
    } catch {
      this.release();
      return undefined;
    }
  }

  /** The header now, when it can be read and is valid (a copy). */
  private headerNow(): Buffer | undefined {
    if (this.replaced || this.fd === undefined) return undefined;
    try {
      return this.readValid(this.fd) ? Buffer.from(this.buf.subarray(0, HEADER)) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Just before an own single-statement write: a mark when nothing was committed since the last look. */
  beforeOwnWrite(): OwnWriteMark | undefined {
    const header = this.headerNow();
    return header && header.equals(this.last) ? { header } : undefined;
  }

  /**
   * Just after it (`changedRows`: what the statement reported). True when it was the only commit
   * since the mark: the listeners drop `key` (none is told when there is no key: rows added to a
   * table no kept read comes from), and the header after is taken as seen. Otherwise false, and
   * the caller makes every kept read stale (`noteWrite`).
   */
  afterOwnWrite(mark: OwnWriteMark | undefined, changedRows: number, key: string | undefined): boolean {
    if (!mark) return false;
    const after = this.headerNow();
    if (!after || !mark.header.equals(this.last)) return false;
    const only = changedRows > 0 ? changeCounter(after) === changeCounter(mark.header) + 1 : after.equals(mark.header);
    if (!only) return false;
    after.copy(this.last);
    if (key !== undefined) for (const forget of this.forgetters) forget(key);
    return true;
  }

  /** Registers a reader's cache to be told the key of an own write; returns the unregistration. */
  onOwnWrite(forget: (key: string) => void): () => void {
    this.forgetters.add(forget);
    return () => this.forgetters.delete(forget);
  }

  private pending: Promise<number | undefined> | undefined;

  /** `current()`, shared by every caller until it is read (see "Reads shared" above). */
  shared(): Promise<number | undefined> {
    return (this.pending ??= new Promise((resolve) => {
      setImmediate(() => {
        // Cleared before the read: a caller from here on must not get a stamp read before it asked.
        this.pending = undefined;
        resolve(this.current());
      });
    }));
  }

  /** A commit of this process is done: kept reads from before it are stale. */
  noteWrite(): void {
    this.generation++;
  }

  /** Closes the file (called on shutdown; a later `current` opens it again if it is the same file). */
  release(): void {
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd);
      } catch {
        // already closed
      }
      this.fd = undefined;
      this.checkedAt = -Infinity;
      // Whatever is read next is compared with nothing seen before.
      this.last.fill(0);
      this.generation++;
    }
  }
}
