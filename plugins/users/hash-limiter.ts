/**
 * At most one password hash per core at a time. Argon2id is memory-hard: each hash walks its own
 * 19 MiB block, so running more of them than there are cores (libuv's pool has 4 threads, a
 * 2-core machine has 2 cores) only makes them evict each other's memory and take turns; measured
 * on the 2-core bench machine, 8 in flight cost ~40% more CPU per hash than 2 in flight and gave
 * fewer hashes per second. Holding the extra ones in this queue instead also keeps pool threads
 * free for the short jobs of the same request (WebCrypto signing, file I/O). FIFO, unbounded like
 * the pool's own queue; rate limits and lockout bound it in practice.
 */
import { availableParallelism } from 'node:os';

export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

export function createLimiter(slots: number = availableParallelism()): Limiter {
  let free = Math.max(1, slots);
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else free++;
  };
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (free > 0) free--;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      release();
    }
  };
}
