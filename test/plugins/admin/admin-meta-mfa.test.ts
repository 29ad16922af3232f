/**
 * `_admin_meta.is_multi_factor_auth_service_enabled` says what `/v1/meta` says of MFA: true only
 * when a plugin of the build offers it.
 */
import t from 'tap';
import { definePlugin } from '../../../core/plugin.js';
import { adminPlugin } from '../../../plugins/admin/index.js';
import { metaPlugin } from '../../../plugins/meta/index.js';
import { bootTestKernel, testContext } from '../../helpers/kernel.js';

const mfaOffered = definePlugin({
  name: 'mfa-probe',
  description: 'offers MFA in meta',
  meta: () => ({ is_multi_factor_auth_enabled: true }),
});

for (const [name, plugins, expected] of [
  ['no plugin offers MFA', [adminPlugin, metaPlugin], false],
  ['a plugin offers MFA', [adminPlugin, metaPlugin, mfaOffered], true],
] as const) {
  t.test(name, async (t) => {
    const booted = await bootTestKernel({ plugins, flags: { 'admin-secret': 's' } });
    t.teardown(() => booted.close());
    const { kernel } = booted;
    const adminMeta = (await kernel.invoke(
      '_admin_meta',
      testContext(kernel, { headers: { 'x-service-admin-secret': 's' } }),
      undefined,
    )) as Record<string, unknown>;
    const meta = (await kernel.invoke('meta', testContext(kernel), undefined)) as Record<string, unknown>;
    t.equal(adminMeta.is_multi_factor_auth_service_enabled, expected);
    t.equal(meta.is_multi_factor_auth_enabled, expected, 'the same as /v1/meta');
  });
}
