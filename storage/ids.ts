/**
 * Identifier generation shared by every plugin (string ids, UUIDv7 or similar).
 *
 * UUIDv7 (RFC 9562 §5.7): 48 bits of Unix milliseconds, then randomness. Ids made in the same
 * millisecond stay ordered through a 12-bit counter in `rand_a` (RFC 9562 §6.2, method 1), so
 * database indexes on ids grow at the end and sort by creation time.
 */
import { randomBytes } from 'node:crypto';

export interface IdGenerator {
  (): string;
}

/** A generator with its own monotonic state (one per process is the usual use). */
export function createIdGenerator(now: () => number = Date.now): IdGenerator {
  let lastMs = -1;
  let counter = 0;
  return () => {
    let ms = now();
    if (ms <= lastMs) {
      // Same (or a backwards) millisecond: keep order by counting; borrow the next millisecond
      // when the 12-bit counter runs out (RFC 9562 §6.2 "counter rollover").
      ms = lastMs;
      counter++;
      if (counter > 0xfff) {
        ms = lastMs + 1;
        counter = 0;
      }
    } else {
      // Start each millisecond in the lower half so the counter has room to grow.
      counter = randomBytes(2).readUInt16BE(0) & 0x7ff;
    }
    lastMs = ms;
    const bytes = randomBytes(16);
    bytes.writeUIntBE(ms, 0, 6);
    bytes[6] = 0x70 | ((counter >> 8) & 0x0f);
    bytes[7] = counter & 0xff;
    bytes[8] = 0x80 | (bytes[8] & 0x3f);
    const hex = bytes.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
}

/** A new time-ordered UUIDv7 string. */
export const newId: IdGenerator = createIdGenerator();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** True for a UUIDv7 in the canonical lowercase form `newId` produces. */
export function isId(value: string): boolean {
  return UUID.test(value);
}
