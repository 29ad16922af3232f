/**
 * A SCIM create stores the user, its SCIM link, its membership of the organization and its
 * `user.provisioned` event (the webhook outbox row and the audit record) by one commit: when the
 * membership cannot be written nothing is left, and the identity provider gets a SCIM error: a
 * 500 for a database refusal, a 503 it may retry when the database cannot be reached, a 4xx for
 * bad input. Its retry then provisions the user once. On every SQL database.
 */
import t from 'tap';
import type { DomainEvent } from '../../../core/events.js';
import { AuditLogEntity } from '../../../plugins/audit/entities.js';
import { OrgMemberEntity } from '../../../plugins/organizations/entities.js';
import { ScimUserEntity } from '../../../plugins/scim/entities.js';
import { UserEntity } from '../../../plugins/users/entities.js';
import { databaseTargets } from '../../helpers/databases.js';
import { refuseInserts } from '../../helpers/refuse-inserts.js';
import { startTestServer, TEST_ADMIN_SECRET, TEST_CLIENT_SECRET } from '../../helpers/server.js';
import { startReceiver } from '../webhooks/receiver.js';
import { ERROR, USER, scim } from './scim-client.js';

const receiver = await startReceiver(TEST_CLIENT_SECRET);
t.teardown(() => receiver.close());
const targets = await databaseTargets({ sqlOnly: true });
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));

for (const target of targets) {
  t.test(`${target.name}: a SCIM create is stored whole or not at all`, async (t) => {
    const server = await startTestServer({ database: target, flags: { 'outbound-allow-cidrs': ['127.0.0.1/32'] } });
    t.teardown(() => server.close());
    const admin = {
      'content-type': 'application/json',
      origin: server.url,
      'x-service-admin-secret': TEST_ADMIN_SECRET,
    };
    const post = async (path: string, body: unknown) => {
      const r = await fetch(`${server.url}${path}`, { method: 'POST', headers: admin, body: JSON.stringify(body) });
      return (await r.json()) as Record<string, unknown>;
    };
    await post('/v1/admin/add_webhook', {
      event_name: 'user.provisioned',
      endpoint: `${receiver.url}/provisioned`,
      enabled: true,
    });
    const webhooks = server.kernel.service('webhooks');
    const hook = (await webhooks.list({ limit: 10, offset: 0 })).rows[0].id;
    const orgId = (await post('/v1/admin/create_organization', { name: `scim-tx-${target.name}` })).id as string;
    const token = (await post('/v1/admin/create_scim_endpoint', { org_id: orgId })).token as string;
    const heard: DomainEvent[] = [];
    t.teardown(server.kernel.events.on('user.provisioned', (e) => void heard.push(e)));

    const em = () => server.kernel.storage.em();
    /** What a create leaves: users, SCIM links, memberships, outbox rows and audit records. */
    const stored = async () => ({
      users: await em().count(UserEntity, {}),
      links: await em().count(ScimUserEntity, { orgId }),
      members: await em().count(OrgMemberEntity, { orgId }),
      rows: (await webhooks.deliveries(hook)).length,
      records: await em().count(AuditLogEntity, { action: 'user.scim_provision' }),
    });
    const nothing = { users: 0, links: 0, members: 0, rows: 0, records: 0 };
    const create = (userName: string) =>
      scim(server, token, 'POST', '/Users', { schemas: [USER], userName, active: true });

    // Runs after the webhook and audit writers: their rows are in the unit when it throws.
    let lost = false;
    server.kernel.events.addWriter('user.provisioned', async () => {
      if (!lost) return;
      lost = false;
      throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' });
    });

    t.test('a membership the database refuses leaves nothing', async (t) => {
      const allow = await refuseInserts(server.kernel.storage, 'latchkey_org_members');
      const refused = await create('refused@example.com');
      await allow();
      t.equal(refused.status, 500);
      t.match(refused.body, { schemas: [ERROR], status: '500' }, 'a SCIM error');
      t.same(await stored(), nothing, 'no user, link, membership, outbox row or audit record');
    });

    t.test('a database lost before the commit is a 503 the client may retry', async (t) => {
      lost = true;
      const unavailable = await create('lost@example.com');
      t.equal(unavailable.status, 503);
      t.match(unavailable.body, { schemas: [ERROR], status: '503' }, 'a SCIM error');
      t.same(await stored(), nothing, 'nothing is stored');
    });

    if (target.name === 'postgres')
      t.test('a connection ended by the server while the membership is written', async (t) => {
        // The trigger ends its own session (SQLSTATE 57P01) in the middle of the create's commit.
        const run = (sql: string) => server.kernel.storage.orm.em.getConnection().execute(sql, [], 'run');
        await run(
          'create function latchkey_org_members_lost() returns trigger language plpgsql as $$ begin perform pg_terminate_backend(pg_backend_pid()); return new; end $$',
        );
        await run(
          'create trigger latchkey_org_members_lost before insert on latchkey_org_members for each row execute function latchkey_org_members_lost()',
        );
        const ended = await create('ended@example.com');
        await run('drop trigger latchkey_org_members_lost on latchkey_org_members');
        await run('drop function latchkey_org_members_lost()');
        t.equal(ended.status, 503);
        t.match(ended.body, { schemas: [ERROR], status: '503' });
        t.same(await stored(), nothing, 'nothing is stored');
      });

    t.test('bad input is a 400 and stores nothing', async (t) => {
      const bad = await create('not-an-address');
      t.equal(bad.status, 400);
      t.match(bad.body, { schemas: [ERROR], status: '400', scimType: 'invalidValue' });
      t.same(await stored(), nothing);
    });

    t.test('the retry provisions the user once, with its membership and event', async (t) => {
      const created = await create('refused@example.com');
      t.equal(created.status, 201);
      const id = created.body!.id as string;
      t.same(await stored(), { users: 1, links: 1, members: 1, rows: 1, records: 1 });
      t.ok(await server.kernel.service('organizations').isMember(orgId, id), 'a member of the organization');
      const again = await create('refused@example.com');
      t.equal(again.status, 409, 'the same userName again is a conflict');
      t.match(again.body, { schemas: [ERROR], scimType: 'uniqueness' });
      t.same(await stored(), { users: 1, links: 1, members: 1, rows: 1, records: 1 }, 'and stores nothing');
      await server.kernel.events.drain();
      t.equal(heard.length, 1, 'subscribers heard of the committed create only');
      t.match(heard[0].payload, { org_id: orgId, user: { id } });
    });
  });
}
