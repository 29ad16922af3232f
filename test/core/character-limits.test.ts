/**
 * String bounds count characters, not UTF-16 code units (core/character-limits.ts): a name of
 * 256 emoji fits a 256-character bound, 257 do not, on the real server and its databases' columns.
 */
import t from 'tap';
import { characterCount, limitOfFormat, withCharacterLimits } from '../../core/character-limits.js';
import { Type } from '../../core/schema.js';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { startTestServer } from '../helpers/server.js';

const EMOJI = '\u{1F600}';

t.test('characters are code points: a surrogate pair counts once, a lone surrogate once', async (t) => {
  t.equal(characterCount(''), 0);
  t.equal(characterCount('abc'), 3);
  t.equal(characterCount(EMOJI.repeat(3)), 3);
  t.equal(characterCount(`a${EMOJI}b`), 3);
  t.equal(characterCount('\ud800x'), 2, 'a high surrogate not followed by a low one is one character');
  t.equal(characterCount('\udc00\ud800'), 2, 'a low then a high surrogate are two');
});

t.test('the validating copy bounds characters; the published schema is left as it is', async (t) => {
  const schema = Type.Object({ name: Type.String({ maxLength: 4 }), tags: Type.Array(Type.String({ maxLength: 2 })) });
  const check = TypeCompiler.Compile(withCharacterLimits(schema));
  t.equal(schema.properties.name.maxLength, 4, 'the original keeps maxLength');
  t.ok(check.Check({ name: EMOJI.repeat(4), tags: [EMOJI.repeat(2)] }), '4 emoji fit 4; 2 fit 2 inside an array');
  t.notOk(check.Check({ name: EMOJI.repeat(5), tags: [] }), '5 do not');
  t.notOk(check.Check({ name: 'abcde', tags: [] }), 'nor 5 ASCII letters');
  t.notOk(check.Check({ name: 'a', tags: ['abc'] }), 'nor 3 letters in a 2-bounded item');
  const error = check.Errors({ name: 'abcde', tags: [] }).First();
  t.equal(limitOfFormat(error?.schema.format), 4, 'the error tells the bound');
  t.equal(limitOfFormat('email'), undefined);
});

t.test('signup takes a 256-emoji name and refuses a 257-emoji one with the usual message', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.close());
  const signup = async (email: string, given_name: string) => {
    const res = await fetch(`${server.url}/v1/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url },
      body: JSON.stringify({ email, password: 'Emoji-pass-1', confirm_password: 'Emoji-pass-1', given_name }),
    });
    return { status: res.status, body: (await res.json()) as { message?: string; user?: { given_name: string } } };
  };
  const ok = await signup('emoji@example.com', EMOJI.repeat(256));
  t.equal(ok.status, 200, '256 characters (512 code units) fit');
  t.equal(ok.body.user?.given_name, EMOJI.repeat(256), 'and come back whole');
  const over = await signup('emoji-2@example.com', EMOJI.repeat(257));
  t.same([over.status, over.body.message], [400, 'invalid given_name: expected string length less or equal to 256']);
  const ascii = await signup('emoji-3@example.com', 'x'.repeat(257));
  t.same(
    [ascii.status, ascii.body.message],
    [400, 'invalid given_name: expected string length less or equal to 256'],
    'the same message as before for plain text',
  );
});

t.test('a missing or mistyped bounded field is named as such, not as too long', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.close());
  const login = async (body: string) => {
    const res = await fetch(`${server.url}/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url },
      body,
    });
    return [res.status, ((await res.json()) as { message?: string }).message];
  };
  // None of these may answer "expected string length less or equal to n": the bound's format is
  // in the schema of every error of that field.
  t.same(await login('{"email":"a@example.com"}'), [400, 'invalid password: expected required property']);
  t.same(await login('{}'), [400, 'invalid password: expected required property'], 'an empty object');
  t.same(await login('null'), [400, 'invalid password: expected required property'], 'a null body');
  t.same(await login('{"email":5,"password":"x"}'), [400, 'invalid email: expected string']);
  t.same(await login('{"email":"a@example.com","password":["x"]}'), [400, 'invalid password: expected string']);
  t.same(
    await login(`{"email":"a@example.com","password":"${'x'.repeat(1025)}"}`),
    [400, 'invalid password: expected string length less or equal to 1024'],
    'too long is still told as such',
  );
});
