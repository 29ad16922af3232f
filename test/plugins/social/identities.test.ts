/**
 * Provider-subject links on every SQL database: one subject links one user, subjects that differ
 * only in case are different identities (MySQL and MariaDB compare text ignoring case), and a
 * user's links go with the user.
 */
import t from 'tap';
import { Config } from '../../../core/config.js';
import { SocialIdentityEntity } from '../../../plugins/social/entities.js';
import { socialIdentities } from '../../../plugins/social/identities.js';
import { openStorage } from '../../../storage/index.js';
import { databaseTargets } from '../../helpers/databases.js';

const targets = await databaseTargets({ sqlOnly: true });
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));

for (const target of targets) {
  t.test(`${target.name}: one subject, one user; case matters; removed with the user`, async (t) => {
    const storage = await openStorage(new Config(target.flags), [SocialIdentityEntity]);
    t.teardown(() => storage.close());
    const ids = socialIdentities(storage);
    t.equal(await ids.userOf('oidc', 'Alice'), null);
    t.equal(await ids.link('oidc', 'Alice', 'user-1'), true);
    t.equal(await ids.userOf('oidc', 'Alice'), 'user-1');
    t.equal(await ids.userOf('oidc', 'alice'), null, 'a subject differing in case is another identity');
    t.equal(await ids.link('oidc', 'alice', 'user-2'), true, 'and links its own user');
    t.equal(await ids.userOf('oidc', 'alice'), 'user-2');
    t.equal(await ids.userOf('github', 'Alice'), null, 'the same subject at another provider is another identity');
    t.equal(await ids.link('oidc', 'Alice', 'user-3'), false, 'a linked subject is not linked again');
    t.equal(await ids.userOf('oidc', 'Alice'), 'user-1');
    await ids.removeUser('user-1');
    t.equal(await ids.userOf('oidc', 'Alice'), null);
    t.equal(await ids.userOf('oidc', 'alice'), 'user-2', "another user's link stays");
  });
}
