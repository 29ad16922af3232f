/**
 * SCIM error answers (RFC 7644 §3.12) for what the services and the database throw: a database
 * that cannot be reached is a 503 the client may retry, in the SCIM error shape; a defect stays
 * an internal error.
 */
import t from 'tap';
import { ServiceError } from '../../../../core/errors.js';
import { ERROR_SCHEMA, scimErrorResponse } from '../../../../plugins/scim/http/scim-error.js';

t.test('an unreachable database answers 503 in the SCIM error shape', async (t) => {
  const poolWait = Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), {
    name: 'KnexTimeoutError',
  });
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  for (const err of [poolWait, refused, new ServiceError('unavailable', 'try again later')]) {
    const answer = scimErrorResponse(err);
    t.equal(answer?.status, 503, err.message);
    t.match(JSON.parse(String(answer?.body)), { schemas: [ERROR_SCHEMA], status: '503' });
  }
});

t.test('a defect is not a SCIM refusal', async (t) => {
  t.equal(scimErrorResponse(new TypeError('x is undefined')), null);
});
