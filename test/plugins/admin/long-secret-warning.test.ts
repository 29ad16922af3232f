/**
 * An admin secret longer than `_admin_login` accepts still starts the server (--admin-secret
 * must only be non-empty), and the operator is warned that only the header can use it.
 */
import t from 'tap';
import type { Logger } from '../../../core/logger.js';
import { adminPlugin } from '../../../plugins/admin/index.js';
import { ADMIN_SECRET_LOGIN_MAX } from '../../../plugins/admin/operations.js';
import { bootTestKernel } from '../../helpers/kernel.js';

function recordingLogger(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const none = () => {};
  return { warnings, logger: { debug: none, info: none, error: none, warn: (_obj, msg) => warnings.push(msg ?? '') } };
}

t.test('a secret longer than _admin_login takes is warned about at startup', async (t) => {
  const { logger, warnings } = recordingLogger();
  const booted = await bootTestKernel({
    plugins: [adminPlugin],
    flags: { 'admin-secret': 'x'.repeat(ADMIN_SECRET_LOGIN_MAX + 1) },
    logger,
  });
  t.teardown(() => booted.close());
  t.equal(warnings.filter((w) => w.includes('longer than _admin_login accepts')).length, 1);
});

t.test('a secret _admin_login can take is not', async (t) => {
  const { logger, warnings } = recordingLogger();
  const booted = await bootTestKernel({
    plugins: [adminPlugin],
    flags: { 'admin-secret': 'x'.repeat(ADMIN_SECRET_LOGIN_MAX) },
    logger,
  });
  t.teardown(() => booted.close());
  t.same(
    warnings.filter((w) => w.includes('_admin_login')),
    [],
  );
});
