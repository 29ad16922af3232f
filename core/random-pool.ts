/**
 * Random bytes for session ids, token ids and IVs, drawn from node:crypto's CSPRNG a batch at a
 * time, as Node's own `randomUUID` does with its entropy cache.
 *
 * Why: every `randomBytes` call builds a job object and enters OpenSSL (~2.5 µs each measured
 * here, against ~0.2 µs for a slice of a filled batch), and a login draws three (session id,
 * access-token `jti`, cookie IV). The bytes are the same CSPRNG output; each is handed out once,
 * and every batch is a new buffer, so a slice already given out is never overwritten. One pool
 * per service instance (no module singletons).
 */
import { randomFillSync } from 'node:crypto';

const BATCH_BYTES = 4096;

export interface RandomPool {
  /** `size` fresh random bytes: a view of a batch that is never written again, safe to keep. */
  bytes(size: number): Buffer;
  /** `size` fresh random bytes as base64url text. */
  id(size: number): string;
}

export function createRandomPool(): RandomPool {
  let batch = Buffer.alloc(0);
  let used = 0;
  const bytes = (size: number): Buffer => {
    if (size > BATCH_BYTES) return randomFillSync(Buffer.allocUnsafe(size));
    if (used + size > batch.length) {
      batch = randomFillSync(Buffer.allocUnsafe(BATCH_BYTES));
      used = 0;
    }
    const out = batch.subarray(used, used + size);
    used += size;
    return out;
  };
  return { bytes, id: (size) => bytes(size).toString('base64url') };
}
