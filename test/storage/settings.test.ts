import t from 'tap';
import { resolve } from 'node:path';
import { Config } from '../../core/config.js';
import { resolveDatabaseSettings } from '../../storage/settings.js';

const settings = (flags: Record<string, string | number>) => resolveDatabaseSettings(new Config(flags));

t.test('sqlite is the default, with a file under data/', async (t) => {
  const s = settings({});
  t.equal(s.type, 'sqlite');
  t.equal(s.url, resolve('data/latchkey.db'));
  t.equal(s.folder, resolve('data'));
  t.equal(settings({ 'database-url': ':memory:' }).url, ':memory:');
  t.equal(settings({ 'database-url': 'file:/tmp/x.db' }).url, '/tmp/x.db');
});

t.test('server URLs are built from host, port, name and credentials', async (t) => {
  t.equal(
    settings({
      'database-type': 'postgres',
      'database-host': 'db',
      'database-name': 'auth',
      'database-username': 'me',
      'database-password': 'p@ss',
    }).url,
    'postgresql://me:p%40ss@db:5432/auth',
  );
  t.equal(
    settings({ 'database-type': 'mariadb', 'database-host': '127.0.0.1', 'database-port': 3307, 'database-name': 'a' })
      .url,
    'mysql://127.0.0.1:3307/a',
  );
  t.equal(
    settings({ 'database-type': 'mongodb', 'database-host': 'm', 'database-name': 'a' }).url,
    'mongodb://m:27017/a',
  );
});

t.test('a given URL must match the type', async (t) => {
  t.equal(
    settings({ 'database-type': 'mariadb', 'database-url': 'mariadb://root@h:3306/db' }).url,
    'mysql://root@h:3306/db',
  );
  t.throws(
    () => settings({ 'database-type': 'postgres', 'database-url': 'mysql://h/db' }),
    /scheme "mysql:" does not match --database-type postgres/,
  );
  t.throws(
    () => settings({ 'database-type': 'postgres' }),
    /needs --database-url, or --database-host and --database-name/,
  );
  t.throws(
    () => settings({ 'database-type': 'sqlite', 'database-url': 'libsql://x.turso.io' }),
    /use --database-type libsql/,
  );
});

t.test('libsql remote URLs keep their token out of the URL', async (t) => {
  const s = settings({ 'database-type': 'libsql', 'database-url': 'libsql://x.turso.io?authToken=abc' });
  t.equal(s.url, 'libsql://x.turso.io');
  t.equal(s.authToken, 'abc');
});

t.test('--database-timeout-ms bounds the waits while serving: 2 s unless given, at least 100 ms', async (t) => {
  const server = { 'database-type': 'postgres', 'database-url': 'postgres://127.0.0.1/a' };
  t.equal(settings(server).timeoutMs, 2_000);
  t.equal(settings({ ...server, 'database-timeout-ms': 8_000 }).timeoutMs, 8_000);
  t.throws(() => settings({ ...server, 'database-timeout-ms': 50 }), /--database-timeout-ms/);
  t.throws(() => settings({ ...server, 'database-timeout-ms': 1.5 }), /--database-timeout-ms/);
});
