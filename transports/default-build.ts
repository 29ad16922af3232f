/**
 * The build the committed documents describe: the default distribution with only the flags
 * required at startup (`--url`, the database, the client id and secret, `--admin-secret`,
 * `--jwt-type`), every other flag at its default. The GraphQL SDL, the .proto and the OpenAPI
 * document are all generated from this one operation table.
 */
import { withDefaults, type Config } from '../core/config.js';
import { Kernel } from '../core/kernel.js';
import { operationTable } from '../core/operation-table.js';
import type { CompiledOperation } from '../core/operations.js';
import type { AnyPlugin } from '../core/plugin.js';
import { defaultPlugins } from '../plugins/default.js';

export function minimalConfig(plugins: readonly AnyPlugin[] = defaultPlugins): Config {
  return withDefaults(Kernel.flagsOf(plugins), {
    url: 'http://localhost:8080',
    'database-type': 'sqlite',
    'database-url': 'latchkey.db',
    'client-id': 'latchkey',
    'client-secret': 'schema-generation',
    'admin-secret': 'schema-generation',
    'jwt-type': 'RS256',
  });
}

export function defaultOperationTable(plugins: readonly AnyPlugin[] = defaultPlugins): CompiledOperation[] {
  return operationTable(plugins, minimalConfig(plugins));
}
