/**
 * A signing-key rotation and its `keys.signing_key_rotated` event (the audit log's `key.rotate`
 * record) are stored by one commit (core/unit-of-work.ts): a failure after the record was written
 * and before the commit, or a database refusal of the record, keeps the previous key id and
 * leaves no record, so the next start reports the rotation; of two nodes reporting the same
 * rotation at once, one commits and the rotation is recorded once. On every SQL database.
 */
import t from 'tap';
import { auditPlugin } from '../../../plugins/audit/index.js';
import { keysPlugin } from '../../../plugins/keys/index.js';
import { noteSigningKey, SIGNING_KEY_ROTATED, SigningKeyEntity } from '../../../plugins/keys/rotation.js';
import { databaseTargets } from '../../helpers/databases.js';
import { bootTestKernel } from '../../helpers/kernel.js';
import { refuseInserts } from '../../helpers/refuse-inserts.js';

const FIRST = 'first-signing-secret-0123456789abcdef';
const SECOND = 'second-signing-secret-0123456789abcdef';

const targets = await databaseTargets({ sqlOnly: true });
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));

for (const target of targets) {
  t.test(`${target.name}: a rotation and its record are stored together or not at all`, async (t) => {
    const boot = (secret: string) =>
      bootTestKernel({
        plugins: [keysPlugin, auditPlugin],
        database: target,
        flags: { 'jwt-type': 'HS256', 'jwt-secret': secret },
      });
    const first = await boot(FIRST);
    t.teardown(() => first.close());
    const kernel = first.kernel;
    await kernel.events.drain();
    const firstKid = kernel.service('keys').current.kid;
    const kept = async () =>
      ((await kernel.storage.em().findOne(SigningKeyEntity, { id: 'signing' } as never)) as { kid: string }).kid;
    const records = async () =>
      (await kernel.service('audit').list({ action: 'key.rotate' }, { limit: 10, offset: 0 })).rows;
    const heard: unknown[] = [];
    t.teardown(kernel.events.on(SIGNING_KEY_ROTATED, (e) => void heard.push(e.payload)));
    t.equal(await kept(), firstKid, "the deployment's first key is kept");

    // Runs after the audit plugin's writer: the record is in the unit when it throws.
    let armed = false;
    kernel.events.addWriter(SIGNING_KEY_ROTATED, async () => {
      if (!armed) return;
      armed = false;
      throw new Error('injected failure between the record and the commit');
    });
    const deps = { storage: kernel.storage, events: kernel.events, logger: kernel.logger };
    const rotateTo = (kid: string) => noteSigningKey(deps, { kid, alg: 'HS256' });

    armed = true;
    await rotateTo('kid-injected');
    t.equal(await kept(), firstKid, 'a failure before the commit keeps the previous key id');
    t.equal((await records()).length, 0, 'and stores no record');

    const allow = await refuseInserts(kernel.storage, 'latchkey_audit_logs');
    await rotateTo('kid-refused');
    await allow();
    t.equal(await kept(), firstKid, 'a refused record undoes the rotation');
    t.equal((await records()).length, 0, 'no record');
    await kernel.events.drain();
    t.equal(heard.length, 0, 'subscribers heard of no rotation');

    const second = await boot(SECOND);
    const secondKid = second.kernel.service('keys').current.kid;
    await second.close();
    t.equal(await kept(), secondKid, 'the next start with another key rotates');
    const [rotation] = await records();
    t.match(rotation, { action: 'key.rotate', resourceId: secondKid, actorType: 'system', actorId: 'configuration' });
    t.same(JSON.parse(rotation.metadata ?? '{}'), { previous_kid: firstKid, algorithm: 'HS256' });
    t.equal((await records()).length, 1, 'recorded once');

    await Promise.all([rotateTo('kid-raced'), rotateTo('kid-raced')]);
    t.equal(await kept(), 'kid-raced');
    t.equal((await records()).length, 2, 'two reports of one rotation at once record it once');
    await kernel.events.drain();
    t.match(heard, [{ kid: 'kid-raced', previous_kid: secondKid }], 'subscribers heard of the committed one');
  });
}
