/** Null means "not given" on every transport: stripNulls removes nulls at any depth, copying only what it changes. */
import t from 'tap';
import { MAX_INPUT_DEPTH, stripNulls } from '../../core/operations.js';
import { ServiceError } from '../../core/errors.js';

t.test('nulls and undefined values are removed at every depth', async (t) => {
  const input = { a: 1, b: null, c: { d: null, e: 'x', f: [1, null, { g: null, h: 2 }] }, i: undefined, j: [null] };
  t.strictSame(
    stripNulls(input),
    { a: 1, c: { e: 'x', f: [1, null, { h: 2 }] }, j: [null] },
    'array items stay in place (an item is never removed)',
  );
  t.strictSame(input.c.f[2], { g: null, h: 2 }, 'the input itself is left as it was');
});

t.test('a value without nulls comes back as the same object, and changed parts only are copied', async (t) => {
  const clean = { a: 1, list: [{ b: 'x' }, 2], nested: { c: true } };
  t.equal(stripNulls(clean), clean);
  const mixed = { keep: { same: 1 }, change: { gone: null, stay: 2 } };
  const out = stripNulls(mixed) as typeof mixed;
  t.not(out, mixed);
  t.equal(out.keep, mixed.keep, 'an untouched branch is shared');
  t.strictSame(out.change, { stay: 2 });
  t.strictSame(Object.keys(out), ['keep', 'change'], 'key order is kept');
  t.equal(stripNulls(null), null);
  t.equal(stripNulls('s'), 's');
});

t.test(
  'text holding U+0000, as a value, an array item or a key, is invalid input naming the field by its whole path',
  async (t) => {
    t.throws(() => stripNulls({ name: 'a\u0000' }), {
      code: 'invalid_argument',
      message: 'invalid name: must not contain the NUL character (U+0000)',
    });
    t.throws(() => stripNulls({ list: ['ok', '\u0000'] }), {
      code: 'invalid_argument',
      message: 'invalid list.1: must not contain the NUL character (U+0000)',
    });
    t.throws(() => stripNulls({ data: { 'k\u0000ey': 1 } }), {
      code: 'invalid_argument',
      message: 'invalid data.key: must not contain the NUL character (U+0000)',
    });
    t.throws(() => stripNulls({ app_data: { a: [{ b: 'x\u0000' }] } }), {
      code: 'invalid_argument',
      message: 'invalid app_data.a.0.b: must not contain the NUL character (U+0000)',
    });
    // A lone UTF-16 surrogate has no UTF-8 form: stored, it would become U+FFFD.
    t.throws(() => stripNulls({ password: 'Pass\ud800w0rd!' }), {
      code: 'invalid_argument',
      message: 'invalid password: must be well-formed Unicode (it holds a lone surrogate)',
    });
    t.throws(() => stripNulls({ list: ['ok', '\udfff'] }), {
      code: 'invalid_argument',
      message: /^invalid list\.1: must be well-formed/,
    });
    t.throws(() => stripNulls({ data: { 'k\udc00': 1 } }), {
      code: 'invalid_argument',
      message: /^invalid data\.k\ufffd: must be well-formed/,
    });
    t.equal(
      (stripNulls({ emoji: '\ud83d\ude00' }) as { emoji: string }).emoji,
      '\ud83d\ude00',
      'a surrogate pair is one character, and fine',
    );
    // 1e400 parses as Infinity; JSON cannot hold it, and stored it would become null.
    t.throws(() => stripNulls({ app_data: { a: JSON.parse('1e400') } }), {
      code: 'invalid_argument',
      message: 'invalid input: numbers must be finite',
    });
    t.throws(() => stripNulls({ list: [1, -Infinity] }), { code: 'invalid_argument' });
    t.throws(() => stripNulls({ n: NaN }), { code: 'invalid_argument' });
    const fine = { name: 'a\u0001b' };
    t.equal(stripNulls(fine), fine, "other control characters are the schemas' business");
  },
);

t.test('nesting deeper than MAX_INPUT_DEPTH is invalid input, not a stack overflow', async (t) => {
  const nest = (levels: number, inner: unknown = 1): unknown => {
    let v = inner;
    for (let i = 0; i < levels; i++) v = i % 2 === 0 ? [v] : { k: v };
    return v;
  };
  t.ok(stripNulls(nest(MAX_INPUT_DEPTH)), `${MAX_INPUT_DEPTH} levels are fine`);
  const failure = (value: unknown): unknown => {
    try {
      stripNulls(value);
      return undefined;
    } catch (err) {
      return err;
    }
  };
  for (const levels of [MAX_INPUT_DEPTH + 1, 200_000]) {
    const err = failure(nest(levels));
    t.ok(err instanceof ServiceError, `${levels} levels: a ServiceError`);
    t.match(err, { code: 'invalid_argument', message: /nested more than 64 levels deep/ });
  }
  t.ok(
    failure(nest(MAX_INPUT_DEPTH + 1, null)) instanceof ServiceError,
    'also when the innermost value is a null to strip',
  );
});

t.test(
  'inside a free-form field (a Map such as app_data) nulls are data and stay; the field itself null is still not given',
  async (t) => {
    const freeForm = new Set(['app_data']);
    const input = {
      app_data: { a: null, b: { c: null, d: [null, { e: null }] } },
      given_name: null,
      other: { x: null },
    };
    t.strictSame(
      stripNulls(input, 0, freeForm),
      { app_data: { a: null, b: { c: null, d: [null, { e: null }] } }, other: {} },
      'only the free-form field keeps its nulls',
    );
    t.strictSame(stripNulls({ app_data: null, n: 1 }, 0, freeForm), { n: 1 }, 'app_data: null is not given');
    t.throws(
      () => stripNulls({ app_data: { a: null, k: 'x\u0000' } }, 0, freeForm),
      { code: 'invalid_argument' },
      'its text is still checked',
    );
    t.strictSame(
      stripNulls({ deeper: { app_data: { a: null } } }, 0, freeForm),
      { deeper: { app_data: {} } },
      'a field of that name below the top level is not the free-form one',
    );
  },
);
