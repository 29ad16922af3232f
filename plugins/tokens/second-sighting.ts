/**
 * Which verified tokens go into the verified-token cache (service.ts): only one seen before.
 *
 * Why: a token presented once (a client that fetches a new token per call, or the bench's cold
 * rows) was verified, stored and, 20,000 tokens later, evicted: old-generation garbage on every
 * request, with nothing gained. A token used again is stored at its second use and answered from
 * the cache from its third on.
 *
 * What is remembered: a fingerprint of each of the last `size` tokens seen once, from four
 * characters at the end of the signature (random-looking for every algorithm), as small integers
 * in a ring and a table of integers (FingerprintSet below), so nothing is allocated per token. The very last character is skipped:
 * it carries only the signature's remaining 2 or 4 bits (RS256, HS256). A character's code is
 * folded to 6 bits, where ten of the 64 base64url characters meet others, so a fingerprint holds
 * about 23 bits: with 20,000 remembered, ~0.2% of new tokens look seen. Two tokens sharing a
 * fingerprint only make the second one cached at its first use, which is what happened to every
 * token before.
 *
 * Exactly the last `size`, no more: the accounts bench's cold rows (bench/accounts/index.ts)
 * cycle through more tokens than the cache and this ring hold, so that every request is a miss.
 * A memory that outlasts `size` breaks that. A direct-mapped table of 65,536
 * fingerprints (no Set): each cold token's mark survived the other 23,999 about 69% of the time,
 * so those tokens were cached at their next pass and answered from the cache at the one after
 * (an estimate from that rate; hits were not counted), and the "cold" rows jumped from 70% to
 * 84-92% of the bare route's rate. With the ring and Set back (the attempt's other change, a
 * synchronous verifyJwt, left in), the rows were where they had been; the Set itself costs
 * ~0.13 µs per new token in a tight loop.
 */
const ALPHABET_BITS = 6;
const FINGERPRINT_CHARS = 4;
/** Characters skipped at the very end (see above). */
const SKIPPED_AT_END = 1;
/** Marks a free slot of the table (fingerprints are 0 to 2^24 - 1). */
const FREE = -1;

/**
 * The ring's fingerprints as a set, in an open-addressing table of 32-bit integers with linear
 * probing, at most a quarter full. Why not a `Set<number>`: on the cold rows every request is a
 * new token, and the Set (an ordered hash table of 20,000 entries, ~0.5 MiB in the V8 heap) paid
 * a lookup, a delete and an insert per request, each through a bucket array and a chain entry
 * out of the CPU's caches: ~2% of the server's main-thread samples in a `perf` profile of cold
 * `profile` (an Intel Xeon VM; the HMAC check was ~5%). Here a lookup usually reads
 * one slot, at most one cache miss, and the insert lands in the slot the lookup stopped at.
 * A fingerprint is in the ring at most once (one seen is never added again), so the table holds
 * no counts: a fingerprint leaves when its one ring entry is overwritten.
 */
class FingerprintSet {
  private readonly slots: Int32Array;
  private readonly mask: number;
  private readonly shift: number;

  constructor(capacity: number) {
    let bits = 4;
    while (1 << bits < capacity * 4) bits++;
    this.slots = new Int32Array(1 << bits).fill(FREE);
    this.mask = (1 << bits) - 1;
    this.shift = 32 - bits;
  }

  /** Fibonacci hashing: the fingerprint's low characters alone would crowd some slots. */
  private home(f: number): number {
    return Math.imul(f, 0x9e3779b1) >>> this.shift;
  }

  /** The slot holding `f`, or the free slot where it would go. */
  private find(f: number): number {
    let i = this.home(f);
    while (this.slots[i] !== FREE && this.slots[i] !== f) i = (i + 1) & this.mask;
    return i;
  }

  /** Adds `f` unless present; true when it was present. */
  addIfAbsent(f: number): boolean {
    const i = this.find(f);
    if (this.slots[i] === f) return true;
    this.slots[i] = f;
    return false;
  }

  /**
   * Removes `f`, moving back any entry of the same run that would no longer be found past the
   * freed slot (backward-shift deletion, Knuth's Algorithm R), so no tombstones build up.
   */
  delete(f: number): void {
    let hole = this.find(f);
    if (this.slots[hole] !== f) return;
    let j = hole;
    for (;;) {
      j = (j + 1) & this.mask;
      const g = this.slots[j];
      if (g === FREE) break;
      const h = this.home(g);
      // g may move into the hole unless its home lies cyclically within (hole, j].
      const stays = hole <= j ? hole < h && h <= j : hole < h || h <= j;
      if (stays) continue;
      this.slots[hole] = g;
      hole = j;
    }
    this.slots[hole] = FREE;
  }
}

export class SecondSighting {
  private readonly ring: Int32Array;
  private readonly seen: FingerprintSet;
  private next = 0;

  constructor(private readonly size: number) {
    this.ring = new Int32Array(size).fill(FREE);
    this.seen = new FingerprintSet(size);
  }

  /** True when a token with this fingerprint was seen lately; otherwise remembers it and answers false. */
  seenBefore(token: string): boolean {
    let f = 0;
    const end = token.length - SKIPPED_AT_END;
    for (let i = end - FINGERPRINT_CHARS; i < end; i++) f = (f << ALPHABET_BITS) | (token.charCodeAt(i) & 0x3f);
    if (this.seen.addIfAbsent(f)) return true;
    const old = this.ring[this.next];
    if (old !== FREE) this.seen.delete(old);
    this.ring[this.next] = f;
    this.next = (this.next + 1) % this.size;
    return false;
  }
}
