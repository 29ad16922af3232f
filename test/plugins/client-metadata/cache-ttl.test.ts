/**
 * How long a client metadata document is kept: its caching headers (RFC 9111 §4.2.1), clamped
 * between a minute and a day; no-store and no-cache keep it for the minimum.
 */
import t from 'tap';
import { DEFAULT_TTL_MS, documentTtlMs, MAX_TTL_MS, MIN_TTL_MS } from '../../../plugins/client-metadata/cache-ttl.js';

t.test('max-age decides, within bounds', async (t) => {
  t.equal(documentTtlMs({ 'cache-control': 'public, max-age=600' }), 600_000);
  t.equal(documentTtlMs({ 'cache-control': 'max-age=5' }), MIN_TTL_MS, 'a few seconds become a minute');
  t.equal(documentTtlMs({ 'cache-control': 'max-age=31536000' }), MAX_TTL_MS, 'a year becomes a day');
  t.equal(documentTtlMs({ 'cache-control': 'no-store' }), MIN_TTL_MS);
  t.equal(documentTtlMs({ 'cache-control': 'no-cache, max-age=600' }), MIN_TTL_MS);
});

t.test('Expires counts from the Date of the answer', async (t) => {
  const date = 'Mon, 07 Dec 2026 08:00:00 GMT';
  t.equal(documentTtlMs({ date, expires: 'Mon, 07 Dec 2026 08:30:00 GMT' }), 30 * 60_000);
  t.equal(documentTtlMs({ date, expires: 'yesterday' }), MIN_TTL_MS, 'an invalid Expires is already expired');
  t.equal(
    documentTtlMs({ 'cache-control': 'max-age=120', date, expires: 'Mon, 07 Dec 2026 09:00:00 GMT' }),
    120_000,
    'max-age wins over Expires',
  );
});

t.test('without caching headers, the default', async (t) => {
  t.equal(documentTtlMs({}), DEFAULT_TTL_MS);
});
