/**
 * How many password checks of one account run at once in this process, and the attempts waiting
 * for one of them to settle (users/service.ts, verifyPassword: at most LOCKOUT_FAILURES minus the
 * failures so far run at once, so a burst of parallel guesses gets no more checks than guesses one
 * after another would).
 *
 * Waiters are woken one at a time, oldest first, and each passes the wake on when it leaves with
 * room still open or without using its turn (a lock, its deadline). Why not wake them all when a
 * check settles: one settle opens one place, so every other waiter read the failure count, found
 * no room and queued again with a new timer. Eight logins in flight on one account (the bench's
 * login row) woke three waiters per login to let one through.
 *
 * A waiter also looks again every `pollMs` on its own: a lock set by another node settles nothing
 * here.
 */

interface Waiter {
  wake(): void;
}

export class AccountHashGate {
  private readonly running = new Map<string, number>();
  private readonly waiters = new Map<string, Waiter[]>();

  constructor(
    /** Checks of one account at most at once, counting its failures so far. */
    private readonly limit: number,
    private readonly pollMs: number,
  ) {}

  /** Takes a place for a check of `key` when `failures` leave room; true when it did. */
  tryEnter(key: string, failures: number): boolean {
    const running = this.running.get(key) ?? 0;
    if (failures + running >= this.limit) return false;
    this.running.set(key, running + 1);
    // The place taken may not have been the last one (a success cleared the count): the next
    // waiter gets its turn now rather than at the next settle.
    if (failures + running + 1 < this.limit) this.passOn(key);
    return true;
  }

  /** A check of `key` settled: its place is free, and the oldest waiter looks again. */
  leave(key: string): void {
    const n = (this.running.get(key) ?? 1) - 1;
    if (n > 0) this.running.set(key, n);
    else this.running.delete(key);
    this.passOn(key);
  }

  /**
   * Until this waiter's turn comes or `pollMs` pass. `first`: it had its turn and found no room
   * (an attempt that was not waiting took the place), so it keeps the head of the line.
   */
  wait(key: string, first = false): Promise<'turn' | 'poll'> {
    return new Promise((resolve) => {
      const line = this.waiters.get(key) ?? [];
      const waiter: Waiter = {
        wake: () => {
          clearTimeout(timer);
          resolve('turn');
        },
      };
      const timer = setTimeout(() => {
        this.remove(key, waiter);
        resolve('poll');
      }, this.pollMs);
      if (first) line.unshift(waiter);
      else line.push(waiter);
      this.waiters.set(key, line);
    });
  }

  /** Wakes the oldest waiter of `key`, if any (a waiter that leaves without using its turn calls it). */
  passOn(key: string): void {
    const line = this.waiters.get(key);
    if (!line) return;
    const next = line.shift();
    if (line.length === 0) this.waiters.delete(key);
    next?.wake();
  }

  /** Checks of `key` running now (tests). */
  runningOf(key: string): number {
    return this.running.get(key) ?? 0;
  }

  /** Attempts of `key` waiting now (tests). */
  waitingOf(key: string): number {
    return this.waiters.get(key)?.length ?? 0;
  }

  private remove(key: string, waiter: Waiter): void {
    const line = this.waiters.get(key);
    if (!line) return;
    const i = line.indexOf(waiter);
    if (i !== -1) line.splice(i, 1);
    if (line.length === 0) this.waiters.delete(key);
  }
}
