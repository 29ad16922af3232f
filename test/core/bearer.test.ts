import t from 'tap';
import { bearerOf } from '../../core/context.js';

/** What `bearerOf` must answer for any Latin-1 header value: RFC 6750 §2.1 as the pattern reads it. */
const byPattern = (h: string): string | undefined => /^Bearer\s+(\S+)\s*$/i.exec(h)?.[1];

t.test('the usual header gives its token', async (t) => {
  t.equal(bearerOf('Bearer abc.def.ghi'), 'abc.def.ghi');
  t.equal(bearerOf('bearer abc'), 'abc', 'the scheme is case-insensitive (RFC 9110 §11.1)');
  t.equal(bearerOf('BeArEr abc'), 'abc');
});

t.test('other shapes answer as the pattern does', async (t) => {
  const cases = [
    'Bearer',
    'Bearer ',
    'Bearer  ',
    'Bearer  abc',
    'Bearer\tabc',
    'Bearer abc ',
    'Bearer abc\t',
    'Bearer abc def',
    'Bearer abc\u00a0def',
    'Bearer abc\u00a0',
    'Bearer\u00a0abc',
    'Bearer abc\vdef',
    'Bearer abc\fdef',
    'Bearer abc\ndef',
    'Bearer abc\rdef',
    'Basic abc',
    'Bearerabc',
    'Bearer: abc',
    'xBearer abc',
    ' Bearer abc',
    'Bearex abc',
    'Cearer abc',
    'Bearer \u00a0abc',
    'BEARER\u00a0\u00a0abc ',
  ];
  for (const h of cases) t.equal(bearerOf(h), byPattern(h), JSON.stringify(h));
});

t.test('every header built from a small alphabet answers as the pattern does', async (t) => {
  // Prefixes near the scheme, then up to 4 characters among token characters and every
  // whitespace a Latin-1 header value can hold: 7^0 + ... + 7^4 tails per prefix.
  const prefixes = ['Bearer ', 'bearer ', 'Bearer', 'Bearer\t', 'Bearer\u00a0', 'Bearea ', 'Bearer  '];
  const alphabet = ['a', '.', ' ', '\t', '\u00a0', '\v', '\r'];
  let tails = [''];
  const all: string[] = [''];
  for (let n = 1; n <= 4; n++) {
    tails = tails.flatMap((s) => alphabet.map((c) => s + c));
    all.push(...tails);
  }
  let differ = 0;
  for (const p of prefixes) for (const tail of all) if (bearerOf(p + tail) !== byPattern(p + tail)) differ++;
  t.equal(differ, 0, `${prefixes.length * all.length} headers`);
});
