/**
 * What a client is told when something other than a ServiceError is thrown: a store that cannot be
 * reached (the drivers' connection errors, pg's connect timeout, knex's pool wait) or a SQLite file
 * whose write lock another process held past the busy timeout is a 503 `unavailable` the client
 * may retry; anything else stays a 500 `internal` with no detail.
 */
import t from 'tap';
import { ServiceError, toServiceError } from '../../core/errors.js';

const coded = (message: string, code: string) => Object.assign(new Error(message), { code });
const named = (message: string, name: string) => Object.assign(new Error(message), { name });

t.test('connection failures are unavailable', async (t) => {
  const cases: [string, Error][] = [
    ['refused', coded('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['reset', coded('read ECONNRESET', 'ECONNRESET')],
    ['mariadb pool timeout', coded('retrieve connection from pool timeout', 'ER_GET_CONNECTION_TIMEOUT')],
    ['mariadb socket closed', coded('socket has unexpectedly been closed', 'ER_SOCKET_UNEXPECTED_CLOSE')],
    ['postgres SQLSTATE 08006', coded('connection failure', '08006')],
    ['postgres shutting down', coded('terminating connection due to administrator command', '57P01')],
    ['pg connect timeout', new Error('timeout expired')],
    ['pg lost connection', new Error('Connection terminated unexpectedly')],
    ['knex pool wait', named('Knex: Timeout acquiring a connection. The pool is probably full.', 'KnexTimeoutError')],
    ['wrapped', new Error('query failed', { cause: coded('connect ECONNREFUSED', 'ECONNREFUSED') })],
  ];
  for (const [name, err] of cases) {
    const e = toServiceError(err);
    t.equal(e.code, 'unavailable', name);
    t.equal(e.status.http, 503, `${name}: 503`);
    t.notMatch(e.message, /127\.0\.0\.1|ECONN|knex/i, `${name}: no detail for the client`);
  }
});

t.test('SQLite busy (another connection held the write lock) is unavailable', async (t) => {
  const cases: [string, Error][] = [
    ['libsql', coded('database is locked', 'SQLITE_BUSY')],
    ['extended code', coded('database is locked', 'SQLITE_BUSY_SNAPSHOT')],
    [
      'as MikroORM passes it on',
      named("insert into `latchkey_users` (`_id`) values ('u1') - database is locked", 'LockWaitTimeoutException'),
    ],
    ['wrapped', new Error('claim failed', { cause: coded('database is locked', 'SQLITE_BUSY') })],
  ];
  for (const [name, err] of cases) {
    const e = toServiceError(err);
    t.equal(e.code, 'unavailable', name);
    t.equal(e.status.http, 503, `${name}: 503`);
    t.notMatch(e.message, /locked|insert|SQLITE/i, `${name}: no detail for the client`);
  }
  t.equal(toServiceError(coded('UNIQUE constraint failed: t.k', 'SQLITE_CONSTRAINT')).code, 'internal');
});

t.test('anything else is internal, and a ServiceError passes through', async (t) => {
  t.equal(toServiceError(new Error('boom')).code, 'internal');
  t.equal(toServiceError(coded('duplicate key', '23505')).code, 'internal');
  t.equal(toServiceError('a string').code, 'internal');
  const own = new ServiceError('not_found', 'no such user');
  t.equal(toServiceError(own), own);
});
