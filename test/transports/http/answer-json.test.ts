/**
 * The JSON of answers that carry tokens (transports/http/answer-json.ts) is the text JSON.stringify
 * gives, whatever the strings hold: only long base64url-and-dot strings are copied as they are.
 */
import t from 'tap';
import { answerJson } from '../../../transports/http/answer-json.js';

const jwt = `${'eyJhbGciOiJIUzI1NiJ9'}.${'eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ'}.${'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'}`;

t.test('the same text as JSON.stringify for answers of every shape', async (t) => {
  const cases: unknown[] = [
    {
      message: 'Logged in successfully',
      access_token: jwt,
      id_token: jwt,
      expires_in: 1800,
      user: { id: 'u1', email: 'a@example.com', given_name: 'Zoë "Z" \\ </script>\u2028', roles: ['user'] },
    },
    { message: 'x', refresh_token: 'A'.repeat(200), skipped: undefined, fn: () => 1, n: null, b: false },
    {
      long_but_not_opaque: `${'a'.repeat(80)}"quote`,
      long_with_space: `${'a'.repeat(80)} b`,
      long_unicode: `${'a'.repeat(80)}é`,
      controls: `${'a'.repeat(80)}\n`,
    },
    { short_opaque: 'abc.def', exactly64: 'x'.repeat(64), empty: '' },
    {},
    { only_undefined: undefined },
    { nested: { deeper: [1, 'two', { three: jwt }] }, date: new Date(0) },
    { toJSON: () => ({ replaced: true }) },
    null,
    'a string',
    [1, 2, jwt],
    42,
  ];
  for (const value of cases)
    t.equal(answerJson(value), JSON.stringify(value), JSON.stringify(value)?.slice(0, 60) ?? String(value));
});

t.test('a long opaque string is not escaped, and a forged one cannot break out of its quotes', async (t) => {
  const text = answerJson({ token: jwt, evil: `${'a'.repeat(70)}","admin":true,"x":"` });
  t.same(JSON.parse(text), { token: jwt, evil: `${'a'.repeat(70)}","admin":true,"x":"` });
});
