/**
 * The verified-token cache's counters (TokensService.verifiedCacheStats), which the accounts
 * bench reads to show that its cold rows missed the cache: a token is verified at its first and
 * second use, kept at the second (second-sighting.ts), and answered from the cache from its third.
 */
import t from 'tap';
import type { TokensService } from '../../../plugins/tokens/types.js';
import { bootAccounts, call, PASSWORD, signup, type Auth } from '../accounts/helpers.js';

const tk = await bootAccounts();
t.teardown(() => tk.close());
const tokens = tk.kernel.service('tokens') as TokensService;

t.test('misses, then hits from the third use, and a forged token is never kept', async (t) => {
  await signup(tk.kernel, 'stats@example.com');
  const auth = await call<Auth>(tk.kernel, 'login', { email: 'stats@example.com', password: PASSWORD });
  const before = tokens.verifiedCacheStats();
  for (let i = 0; i < 4; i++) t.ok(await tokens.verifyAccessToken(auth.access_token), `use ${i + 1} verifies`);
  const after = tokens.verifiedCacheStats();
  t.same(
    { hits: after.hits - before.hits, misses: after.misses - before.misses, kept: after.kept - before.kept },
    { hits: 2, misses: 2, kept: 1 },
  );
  const forged = `${auth.access_token.slice(0, -4)}AAAA`;
  for (let i = 0; i < 3; i++) t.equal(await tokens.verifyAccessToken(forged), null, 'a forged token fails');
  const last = tokens.verifiedCacheStats();
  t.same(
    { hits: last.hits - after.hits, misses: last.misses - after.misses, kept: last.kept },
    { hits: 0, misses: 3, kept: after.kept },
    'checked every time, never kept',
  );
});
