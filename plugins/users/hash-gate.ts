/**
 * How many password checks of one account run at once in this process, and the attempts waiting
 * for one of them to settle (users/service.ts, verifyPassword: at most `limit` minus the failures
 * so far run at once, so a burst of parallel guesses gets no more checks than guesses one after
 * another would).
 *
 * Waiters are woken one at a time, oldest first, and each passes the wake on when it takes a place
 * with room still left (a success cleared the count) or leaves without using its turn (a lock, its
 * deadline, a failed read). Why not wake them all when a check settles: one settle opens one
 * place, so every other waiter read the failure count, found no room and queued again with a new
 * timer. Eight logins in flight on one account (the bench's login row) woke three waiters per
 * login to let one through.
 *
 * A waiter also looks again every `pollMs` on its own: a lock set by another node settles nothing
 * here.
 */

interface Waiter {
  wake(): void;
}

/** What `enter` answers: the failures counted when a place was taken, or why none was. */
export type GateEntry = { failures: number } | 'locked' | 'busy';

export class AccountHashGate {
  private readonly running = new Map<string, number>();
  private readonly waiters = new Map<string, Waiter[]>();

  constructor(
    /** Checks of one account at most at once, counting its failures so far; that many failures is a lock. */
    private readonly limit: number,
    private readonly pollMs: number,
  ) {}

  /**
   * A place for a check of `key`, waiting for one while the count `failuresOf` reads (again at
   * every look) leaves none: 'locked' once the count reaches the limit, 'busy' past `settleBy`
   * (a Date.now() time). A place taken is given back with `leave`.
   */
  async enter(key: string, failuresOf: () => Promise<number>, settleBy: number): Promise<GateEntry> {
    let hadTurn = false;
    try {
      for (;;) {
        const failures = await failuresOf();
        if (failures >= this.limit) return 'locked';
        if (this.tryEnter(key, failures)) {
          hadTurn = false;
          return { failures };
        }
        if (Date.now() > settleBy) return 'busy';
        // A waiter that had its turn and found no room (an attempt that was not waiting took the
        // place) keeps the head of the line.
        hadTurn = (await this.wait(key, hadTurn)) === 'turn';
      }
    } finally {
      // Left with its turn unused: the next waiter looks now (it learns of a lock at once, not at
      // its next poll).
      if (hadTurn) this.passOn(key);
    }
  }

  /** A check of `key` settled: its place is free, and the oldest waiter looks again. */
  leave(key: string): void {
    const n = (this.running.get(key) ?? 1) - 1;
    if (n > 0) this.running.set(key, n);
    else this.running.delete(key);
    this.passOn(key);
  }

  /** Checks of `key` running now (tests). */
  runningOf(key: string): number {
    return this.running.get(key) ?? 0;
  }

  /** Attempts of `key` waiting now (tests). */
  waitingOf(key: string): number {
    return this.waiters.get(key)?.length ?? 0;
  }

  private tryEnter(key: string, failures: number): boolean {
    const running = this.running.get(key) ?? 0;
    if (failures + running >= this.limit) return false;
    this.running.set(key, running + 1);
    // Not the last place: the next waiter gets its turn now rather than at the next settle.
    if (failures + running + 1 < this.limit) this.passOn(key);
    return true;
  }

  /** Until this waiter's turn comes or `pollMs` pass; `first` puts it at the head of the line. */
  private wait(key: string, first: boolean): Promise<'turn' | 'poll'> {
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

  private passOn(key: string): void {
    const line = this.waiters.get(key);
    if (!line) return;
    const next = line.shift();
    if (line.length === 0) this.waiters.delete(key);
    next?.wake();
  }

  private remove(key: string, waiter: Waiter): void {
    const line = this.waiters.get(key);
    if (!line) return;
    const i = line.indexOf(waiter);
    if (i !== -1) line.splice(i, 1);
    if (line.length === 0) this.waiters.delete(key);
  }
}
