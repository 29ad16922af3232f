/**
 * An admin secret with whitespace at an end (`--admin-secret " s3cret\n"`, e.g. read from a file
 * with its trailing newline) is valid: the startup rules require only that it is
 * not empty. HTTP carries no whitespace at either end of a header value (RFC 9110 §5.5, and Node
 * drops it on arrival), so the header `x-service-admin-secret` (the super-admin's
 * header) is compared with the secret as a header can carry it; `admin_secret` in a JSON
 * body still has to be exact.
 */
import t from 'tap';
import { request } from 'node:http';
import { secretMatcher } from '../../../plugins/admin/session.js';
import { startTestServer } from '../../helpers/server.js';

const SECRET = ' padded-secret\t\n';

t.test('the header matcher takes the secret without its edge whitespace', async (t) => {
  const header = secretMatcher(SECRET, 'header');
  t.equal(header('padded-secret'), true, 'as an HTTP/1 server hands it over');
  t.equal(header(' padded-secret\t'), true, 'handed over with its edge whitespace still on');
  t.equal(header('padded-secre'), false, 'a cut value');
  t.equal(header('padded-secret!'), false, 'a longer value');
  t.equal(header(''), false, 'empty');
  t.equal(secretMatcher(' \t\n', 'header')(''), false, 'a secret of whitespace only is never matched by a header');
  t.equal(secretMatcher(SECRET)('padded-secret'), false, 'text (a JSON body) is compared exactly');
  t.equal(secretMatcher(SECRET)(SECRET), true);
});

t.test('a started server takes such a secret in the header', async (t) => {
  const server = await startTestServer({ flags: { 'admin-secret': SECRET } });
  t.teardown(() => server.close());
  const { port } = new URL(server.url);
  // node:http sends header values as given (fetch would refuse the newline).
  const meta = (value: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/v1/admin/meta', headers: { 'x-service-admin-secret': value } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
  t.equal(await meta(' padded-secret\t'), 200, 'the secret, its edge whitespace dropped on the way');
  t.equal(await meta('padded-secret'), 200, 'the secret as a header carries it');
  t.equal(await meta('padded-secrex'), 401, 'another value is refused');
  const login = (admin_secret: string) =>
    fetch(`${server.url}/v1/admin/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url },
      body: JSON.stringify({ admin_secret }),
    });
  t.equal((await login(SECRET)).status, 200, 'admin_login takes the exact secret');
  t.equal((await login('padded-secret')).status, 401, 'and only the exact secret');
});
