/**
 * The committed `latchkey.proto`: the gRPC surface of the default distribution with only the
 * flags SPEC.md requires at startup ("Startup configuration"), every other flag at its default.
 */
import { fileURLToPath } from 'node:url';
import { withDefaults } from '../../core/config.js';
import { Kernel } from '../../core/kernel.js';
import { operationTable } from '../../core/operation-table.js';
import { defaultPlugins } from '../../plugins/default.js';
import { buildProto } from './proto.js';

export const COMMITTED_PROTO_PATH = fileURLToPath(new URL('./latchkey.proto', import.meta.url));

/** The smallest configuration the default distribution starts with. */
export const MINIMUM_FLAGS: Readonly<Record<string, string>> = {
  url: 'http://localhost:8080',
  'database-type': 'sqlite',
  'database-url': 'latchkey.db',
  'client-id': 'client-id',
  'client-secret': 'client-secret',
  'admin-secret': 'admin-secret',
  'jwt-type': 'HS256',
  'jwt-secret': 'jwt-secret',
};

export function defaultDistributionProto(): string {
  const config = withDefaults(Kernel.flagsOf(defaultPlugins), MINIMUM_FLAGS);
  return buildProto(operationTable(defaultPlugins, config));
}
