/**
 * The super-admin secret check (plugins/admin/session.ts): only the exact secret matches. Cut,
 * extended, padded and same-length wrong values fail, including right after the right secret
 * was checked (the matcher reuses one buffer, so a leftover of the last value must never help).
 */
import t from 'tap';
import { secretMatcher, secretMatches } from '../../../plugins/admin/session.js';

const SECRET = 'correct horse battery staple';

t.test('the exact secret matches, and keeps matching', async (t) => {
  const matches = secretMatcher(SECRET);
  t.equal(matches(SECRET), true);
  t.equal(matches(SECRET), true, 'a second time (the buffer is reused)');
  t.equal(secretMatches(SECRET, SECRET), true);
});

t.test('anything else fails', async (t) => {
  const matches = secretMatcher(SECRET);
  const wrong: [string, string | undefined][] = [
    ['missing', undefined],
    ['empty', ''],
    ['a prefix', SECRET.slice(0, -1)],
    ['the secret plus one character', `${SECRET}x`],
    ['the secret padded with NUL bytes', `${SECRET}\0\0`],
    ['a NUL-padded prefix of the same length', `${SECRET.slice(0, -1)}\0`],
    ['same length, one byte off', `${SECRET.slice(0, -1)}f`],
    ['same length, all different', 'x'.repeat(SECRET.length)],
    ['different case', SECRET.toUpperCase()],
  ];
  for (const [name, value] of wrong) {
    t.equal(matches(SECRET), true, `the right secret first (${name})`);
    t.equal(matches(value), false, name);
  }
});

t.test('byte lengths, not character counts, are compared', async (t) => {
  const matches = secretMatcher('pässwörd-ü');
  t.equal(matches('pässwörd-ü'), true);
  // As many characters, fewer bytes: the first bytes written are a prefix of the secret's.
  t.equal(matches('pässwörd-u'), false);
  // A multi-byte character straddling the end of the buffer is not written in part.
  t.equal(matches('pässwörd-üü'), false);
  t.equal(matches('pässwörd-'), false);
});

t.test('an empty expected secret matches nothing', async (t) => {
  const matches = secretMatcher('');
  t.equal(matches(''), false);
  t.equal(matches('x'), false);
});

t.test('a header carries the secret as the bytes a client sent (one character per byte)', async (t) => {
  const secret = 'pässwörd-ü';
  const header = secretMatcher(secret, 'header');
  const onTheWire = Buffer.from(secret, 'utf8').toString('latin1');
  t.equal(header(onTheWire), true, 'the UTF-8 bytes of the secret, as Node hands them over');
  t.equal(header(secret), false, 'the characters sent one byte each are other bytes');
  t.equal(header(onTheWire.slice(0, -1)), false, 'a cut value');
  t.equal(secretMatcher('ascii-secret', 'header')('ascii-secret'), true, 'ASCII is the same either way');
});

t.test('a started server takes a non-ASCII admin secret in the header', async (t) => {
  const { startTestServer } = await import('../../helpers/server.js');
  const secret = 'sécret-管理者';
  const server = await startTestServer({ flags: { 'admin-secret': secret } });
  t.teardown(() => server.close());
  const ask = (value: string) =>
    fetch(`${server.url}/v1/admin/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url, 'x-service-admin-secret': value },
      body: '{}',
    });
  t.equal((await ask(Buffer.from(secret, 'utf8').toString('latin1'))).status, 200, 'the secret sent as UTF-8 bytes');
  t.equal((await ask('s-wrong')).status, 401, 'another value is refused');
});
