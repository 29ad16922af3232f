/**
 * Password checks with lockout: five failed logins lock the account for 15 minutes. Failures are
 * counted in a window opened by the first one; the fifth sets the count afresh, full, for 15
 * minutes, so the lock lasts 15 minutes from that failure (inside the first failure's window it
 * could end at once) and "locked" is just "the count is full": one read per attempt.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { MemoryStore } from '../../core/memory-store.js';
import { AccountHashGate } from './hash-gate.js';
import type { PasswordCheck, UserRecord } from './types.js';

export const LOCKOUT_FAILURES = 5;
export const LOCKOUT_MS = 15 * 60 * 1000;
/** How long an attempt past the first LOCKOUT_FAILURES in flight waits for them (a few hashes' time), and how often it looks. */
const SETTLE_MS = 3_000;
const SETTLE_POLL_MS = 50;

export interface PasswordChecks {
  verifyPassword(user: UserRecord, password: string, unknownAs?: string): Promise<PasswordCheck>;
  /** Forgets the failure count kept under a user's id (the user is being deleted). */
  forgetFailures(userId: string): Promise<void>;
}

export function createPasswordChecks(
  memory: MemoryStore,
  hash: (password: string) => Promise<string>,
  verifyHash: (stored: string, password: string) => Promise<boolean>,
): PasswordChecks {
  // A hash of a random password, for accounts without one; made on first need, not at boot
  // (every kernel, test kernels included, would otherwise pay a full Argon2id hash to start).
  let decoy: Promise<string> | undefined;
  const decoyHash = (): Promise<string> => {
    if (!decoy) {
      decoy = hash(`decoy-${randomBytes(16).toString('base64url')}`);
      decoy.catch(() => (decoy = undefined)); // a failed hash is retried by the next caller
    }
    return decoy;
  };
  const failuresKey = (key: string) => `login-failures:${key}`;
  const failuresOf = async (key: string): Promise<number> => Number((await memory.get(failuresKey(key))) ?? 0);
  /** Counts a failure under `key`; true when it locks (and then keeps the count full for the lock's time). */
  const recordFailure = async (key: string): Promise<boolean> => {
    if ((await memory.increment(failuresKey(key), LOCKOUT_MS)) < LOCKOUT_FAILURES) return false;
    await memory.set(failuresKey(key), String(LOCKOUT_FAILURES), LOCKOUT_MS);
    return true;
  };
  /** Password checks of each account running in this process now, and who waits for them. */
  const gate = new AccountHashGate(LOCKOUT_FAILURES, SETTLE_POLL_MS);

  return {
    forgetFailures: (userId) => memory.delete(failuresKey(userId)),
    async verifyPassword(user, password, unknownAs): Promise<PasswordCheck> {
      // An identifier with no account fails and locks as an account would, so a 429 after five
      // tries does not tell that the account exists (its key is the identifier's digest; the
      // caller names it in its normalized form, so every spelling of one identifier shares a
      // count, as the spellings of a real account's do). An account without a password (made by
      // a magic link, say) counts under its id like any other, or never locking would tell it
      // apart from an unknown identifier. Both hash a decoy, the same work as a real check, and
      // pass the same gate below: if a burst of 20 wrong guesses hashed all 20 for an unknown
      // email and only 5 for an account, the burst's time would tell them apart.
      const key =
        !user.password && unknownAs !== undefined
          ? `unknown:${createHash('sha256').update(unknownAs.toLowerCase()).digest('base64url')}`
          : user.id;
      // At most LOCKOUT_FAILURES - (failures so far) hashes of one key run at once here, so a
      // burst of parallel guesses gets no more checks than guesses one after another would
      // (counting only after each hash would let a whole burst through, the right password among
      // them). Others wait for those to settle, woken one at a time (hash-gate.ts): a fifth
      // failure locks and refuses them unhashed; a success clears the count and they go on. The
      // in-flight count is this process's (exact, no round trip); failures and the lock are
      // shared by every node, so a burst spread over n nodes gets at most n times the allowance
      // before the lock holds.
      const entry = await gate.enter(key, () => failuresOf(key), Date.now() + SETTLE_MS);
      if (typeof entry === 'string') return entry;
      const { failures } = entry;
      let ok: boolean;
      try {
        ok = user.password
          ? await verifyHash(user.password, password)
          : (await verifyHash(await decoyHash(), password), false);
      } catch (err) {
        gate.leave(key);
        throw err;
      }
      if (ok) {
        // A success clears the count, before the waiters are woken, so they see what it leaves.
        // Failures of attempts that ran beside this one, here or on another node, may have been
        // counted while it hashed (a success that read none before its hash would leave them
        // standing, and one more wrong guess would then lock), so the count is read again; the
        // store write happens only when there is a count.
        try {
          if (failures > 0 || (await failuresOf(key)) > 0) await memory.delete(failuresKey(key));
          return 'ok';
        } finally {
          gate.leave(key);
        }
      }
      // Counted before this attempt leaves the in-flight count, so it is never in neither.
      let locks: boolean;
      try {
        locks = await recordFailure(key);
      } finally {
        gate.leave(key);
      }
      if (locks) return 'locked';
      return user.password ? 'wrong' : 'no_password';
    },
  };
}
