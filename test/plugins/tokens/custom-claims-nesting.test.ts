/**
 * `--custom-access-token-script`: a result nested deeper than the host can serialize must add
 * nothing, not fail the login. The host parses the script's JSON text (V8's JSON.parse is
 * iterative, any depth parses) and later signs it with JSON.stringify, which recurses and throws
 * RangeError past a few thousand levels: the access token could not be signed, every login failed
 * with a 500. The script's own JSON.stringify is the context's, which the script may replace.
 */
import t from 'tap';
import type { Logger } from '../../../core/logger.js';
import { compileCustomizer, MAX_CLAIMS_TEXT } from '../../../plugins/tokens/custom-claims.js';

const logger = { warn() {}, info() {}, error() {}, debug() {} } as unknown as Logger;
const compile = (source: string) => compileCustomizer(source, 'role', logger)!;
const DEPTH = 8000;

t.test('a result nested too deep to sign adds nothing (the access token stays signable)', async (t) => {
  const sources = [
    // The script's own JSON.stringify replaced: the text handed to the host is whatever it says.
    `function () { JSON.stringify = () => '{"deep":' + '['.repeat(${DEPTH}) + ']'.repeat(${DEPTH}) + '}'; return {}; }`,
    // The same text from a JSON.parse of the script's own: a real nested value.
    `function () { const deep = JSON.parse('['.repeat(${DEPTH}) + ']'.repeat(${DEPTH})); return { deep }; }`,
  ];
  t.ok(
    `{"deep":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}`.length <= MAX_CLAIMS_TEXT,
    'the text is within MAX_CLAIMS_TEXT',
  );
  for (const source of sources) {
    const claims = compile(source)({ id: 'u1' }, { sub: 'u1' });
    t.doesNotThrow(() => JSON.stringify({ sub: 'u1', ...claims }), 'what is merged into the access token serializes');
    t.notOk('deep' in claims, 'the over-deep claim is not kept');
  }
});

t.test('ordinary nesting is kept', async (t) => {
  const claims = compile('function () { return { org: { team: { ids: [[1, 2], [3]] } } }; }')({ id: 'u1' }, {});
  t.same(claims, { org: { team: { ids: [[1, 2], [3]] } } });
});
