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
 * in a ring and a Set, so nothing is allocated per token. The very last character is skipped:
 * it carries only the signature's remaining 2 or 4 bits (RS256, HS256). A character's code is
 * folded to 6 bits, where ten of the 64 base64url characters meet others, so a fingerprint holds
 * about 23 bits: with 20,000 remembered, ~0.2% of new tokens look seen. Two tokens sharing a
 * fingerprint only make the second one cached at its first use, which is what happened to every
 * token before.
 *
 * Exactly the last `size`, no more: the accounts bench's cold rows (bench/accounts/index.ts)
 * cycle through more tokens than the cache and this ring hold, so that every request is a miss.
 * A memory that outlasts `size` breaks that. Session 28 tried a direct-mapped table of 65,536
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

export class SecondSighting {
  private readonly ring: Int32Array;
  private readonly seen = new Set<number>();
  private next = 0;

  constructor(private readonly size: number) {
    this.ring = new Int32Array(size).fill(-1);
  }

  /** True when a token with this fingerprint was seen lately; otherwise remembers it and answers false. */
  seenBefore(token: string): boolean {
    let f = 0;
    const end = token.length - SKIPPED_AT_END;
    for (let i = end - FINGERPRINT_CHARS; i < end; i++) f = (f << ALPHABET_BITS) | (token.charCodeAt(i) & 0x3f);
    if (this.seen.has(f)) return true;
    const old = this.ring[this.next];
    if (old !== -1) this.seen.delete(old);
    this.ring[this.next] = f;
    this.next = (this.next + 1) % this.size;
    this.seen.add(f);
    return false;
  }
}
