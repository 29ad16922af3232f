/**
 * Password hashing with Argon2id (RFC 9106) through @node-rs/argon2, whose async functions run on
 * the libuv thread pool, so a hash never blocks the event loop. The users service runs the same
 * computation on its own worker threads instead (hash-workers.ts: the pool is also where every
 * JWT signature runs); these async functions remain for the bench's raw ceiling and embedders.
 *
 * Parameters: OWASP's Argon2id line "m=19 MiB, t=2, p=1". Measured on this project's 2-core
 * machine (bench/accounts reports it every run): about 10 ms per verification alone and about
 * 190 verifications/s with both cores busy. The candidates measured alongside: m=12 MiB t=3
 * (5.5 ms, but less memory per guess for an attacker), m=46 MiB t=1 (22 ms, 24/s under load:
 * memory bandwidth, not CPU, becomes the limit on two cores), m=64 MiB t=3 (177 ms: a login
 * flood would be a denial of service). 19 MiB x 2 keeps the memory cost per guess well above
 * GPU-friendly sizes while one node still serves ~190 logins/s (~100/s when the shared machine
 * is busy with other work, as in the bench runs of issue 3). Hashes are PHC strings, so the
 * parameters can be raised later and old hashes keep verifying. There is no weaker test mode.
 */
import { hash, verify } from '@node-rs/argon2';

// Algorithm.Argon2id; the package exports it as an ambient const enum, which isolated modules cannot read.
const ARGON2ID = 2;

export interface HashParams {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

export const PRODUCTION_PARAMS: HashParams = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string, params: HashParams): Promise<string> {
  return hash(password, { algorithm: ARGON2ID, ...params });
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    // A malformed stored hash is a failed check, never a 500.
    return false;
  }
}
