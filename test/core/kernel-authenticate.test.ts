/**
 * The kernel's access check: authenticators of an access level run in the order
 * they were registered and the first principal wins; an authenticator may answer without a
 * promise, and then the call is admitted without waiting; org-admin tries the admin chain first,
 * and a list of levels runs their chains in turn.
 */
import t from 'tap';
import type { Principal, RequestContext } from '../../core/context.js';
import { ServiceError } from '../../core/errors.js';
import { defineOperation } from '../../core/operations.js';
import { definePlugin } from '../../core/plugin.js';
import { Type } from '../../core/schema.js';
import { bootTestKernel, testContext } from '../helpers/kernel.js';

const calls: string[] = [];
const who = (ctx: RequestContext): string | undefined => ctx.header('x-who');

/** Each authenticator recognises one `x-who` value, some at once and some after a wait. */
const recognises = (name: string, value: string, kind: Principal['kind'], wait: boolean) => (ctx: RequestContext) => {
  calls.push(name);
  const principal: Principal | null = who(ctx) === value ? { kind, subject: `${kind}:${value}` } : null;
  return wait ? new Promise<Principal | null>((resolve) => setTimeout(() => resolve(principal), 2)) : principal;
};

const Whoami = Type.Object({ subject: Type.String() });
const whoami = (name: string, access: 'session' | 'admin' | 'org-admin') =>
  defineOperation({
    name,
    kind: 'query',
    access,
    description: name,
    output: Whoami,
    handler: async (ctx) => ({ subject: ctx.principal?.subject ?? '' }),
  });

const plugin = definePlugin({
  name: 'auth-probe',
  description: 'Authenticators answering at once and after a wait.',
  operations: [whoami('probe_session', 'session'), whoami('probe_admin', 'admin'), whoami('probe_org', 'org-admin')],
  setup(ctx) {
    ctx.authenticate('session', recognises('session-sync', 'alice', 'user', false));
    ctx.authenticate('session', recognises('session-async', 'bob', 'user', true));
    ctx.authenticate('session', recognises('session-sync-late', 'carol', 'user', false));
    ctx.authenticate('admin', recognises('admin-sync', 'root', 'admin', false));
    ctx.authenticate('org-admin', recognises('org-async', 'acme-admin', 'org-admin', true));
  },
});

const booted = await bootTestKernel({ plugins: [plugin] });
t.teardown(() => booted.close());
const { kernel } = booted;
const call = (op: string, value?: string) => {
  calls.length = 0;
  return kernel.invoke(op, testContext(kernel, { headers: value ? { 'x-who': value } : {} }), undefined);
};

t.test('the first authenticator that answers at once admits the call; later ones do not run', async (t) => {
  t.strictSame(await call('probe_session', 'alice'), { subject: 'user:alice' });
  t.strictSame(calls, ['session-sync']);
  t.equal(
    kernel.authenticate('session', testContext(kernel, { headers: { 'x-who': 'alice' } }), undefined) instanceof
      Promise,
    false,
    'no promise when none was waited for',
  );
});

t.test('a waiting authenticator is awaited, and the chain goes on after it in order', async (t) => {
  t.strictSame(await call('probe_session', 'bob'), { subject: 'user:bob' });
  t.strictSame(calls, ['session-sync', 'session-async']);
  t.strictSame(
    await call('probe_session', 'carol'),
    { subject: 'user:carol' },
    'an authenticator after a waiting one still runs',
  );
  t.strictSame(calls, ['session-sync', 'session-async', 'session-sync-late']);
});

t.test('no principal from any authenticator is unauthenticated, at once or after waiting', async (t) => {
  await t.rejects(call('probe_session', 'mallory'), new ServiceError('unauthenticated', 'unauthorized'));
  t.strictSame(calls, ['session-sync', 'session-async', 'session-sync-late']);
  await t.rejects(call('probe_admin', 'alice'), new ServiceError('unauthenticated', 'unauthorized'));
  t.strictSame(calls, ['admin-sync'], 'only the admin chain runs for admin operations');
});

t.test('org-admin tries the admin chain, then the org-admin chain', async (t) => {
  t.strictSame(await call('probe_org', 'root'), { subject: 'admin:root' });
  t.strictSame(calls, ['admin-sync']);
  t.strictSame(await call('probe_org', 'acme-admin'), { subject: 'org-admin:acme-admin' });
  t.strictSame(calls, ['admin-sync', 'org-async']);
});

t.test('several levels run one chain after the other (session callers, then admins)', async (t) => {
  calls.length = 0;
  const ctxOf = (value: string) => testContext(kernel, { headers: { 'x-who': value } });
  t.strictSame(await kernel.authenticate(['session', 'admin'], ctxOf('root'), undefined), {
    kind: 'admin',
    subject: 'admin:root',
  });
  t.strictSame(calls, ['session-sync', 'session-async', 'session-sync-late', 'admin-sync']);
  calls.length = 0;
  t.strictSame(await kernel.authenticate(['session', 'admin'], ctxOf('alice'), undefined), {
    kind: 'user',
    subject: 'user:alice',
  });
  t.strictSame(calls, ['session-sync'], 'the first principal ends the search');
});

t.test('public access needs no authenticator', async (t) => {
  t.equal(kernel.authenticate('public', testContext(kernel), undefined), null);
});
