/**
 * The verified-token cache (service.ts): tokens whose signature, algorithm and issuer checked
 * out, each until its `exp`, found by the token's last TAIL characters and confirmed against the
 * whole token.
 *
 * Why not a Map keyed by the whole token: a bearer token arrives as a new string on every request,
 * and V8 hashes a string over its full length the first time it is used as a key. For the 519
 * characters of the bench's HS256 access token that lookup cost ~1.6 µs, against ~0.45 µs for the
 * tail and one comparison of the whole text (a micro-benchmark of 20,000 kept tokens);
 * in a CPU profile of `profile` with a kept token the lookup was ~3% of the server's CPU.
 *
 * Why the tail: it is the end of the signature, random-looking for every algorithm. Two tokens
 * sharing a tail take one slot: the one stored later replaces the other, which is then only a
 * miss and verified again. A hit needs the whole text to match, so a token made up to share a
 * cached token's tail is verified like any other, and an entry is only ever stored after its
 * token verified: a forged token never takes a slot. (A client's own valid tokens do, as any
 * client's; eviction is oldest first, so the most they can do is turn others' hits into misses.)
 */
import { ExpiringCache } from '../../core/expiring-cache.js';

/** Characters of a token's end that find its slot. */
const TAIL = 32;

const tailOf = (token: string): string => (token.length > TAIL ? token.slice(-TAIL) : token);

export class VerifiedTokens<V> {
  private readonly entries: ExpiringCache<string, { token: string; value: V }>;

  constructor(max: number) {
    this.entries = new ExpiringCache(max);
  }

  /** The value kept for exactly this token while `now` is before its deadline. */
  get(token: string, now: number): V | undefined {
    const e = this.entries.get(tailOf(token), now);
    return e !== undefined && e.token === token ? e.value : undefined;
  }

  /** Keeps `value` for `token` until `until`; a token sharing its tail loses its entry. */
  set(token: string, value: V, until: number): void {
    this.entries.set(tailOf(token), { token, value }, until);
  }

  get size(): number {
    return this.entries.size;
  }
}
