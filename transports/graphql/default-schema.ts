/**
 * The SDL of the default distribution, as committed in `schema.graphql` (DESIGN.md §3: generated
 * documents are committed and a test fails on drift). The operation table is computed without
 * booting, from `defaultPlugins` and a configuration holding only the flags every start needs.
 */
import { fileURLToPath } from 'node:url';
import { Kernel } from '../../core/kernel.js';
import { withDefaults, type Config } from '../../core/config.js';
import { operationTable } from '../../core/operation-table.js';
import type { AnyPlugin } from '../../core/plugin.js';
import { defaultPlugins } from '../../plugins/default.js';
import { buildSdl } from './sdl.js';

export const SCHEMA_FILE = fileURLToPath(new URL('./schema.graphql', import.meta.url));

const HEADER = '# Generated from the operation table by transports/graphql/generate.ts; do not edit by hand.\n\n';

/** The required flags (SPEC.md "Startup configuration") with placeholder values, over the defaults. */
export function minimalConfig(plugins: readonly AnyPlugin[]): Config {
  return withDefaults(Kernel.flagsOf(plugins), {
    url: 'http://localhost:8080',
    'database-type': 'sqlite',
    'client-id': 'latchkey',
    'client-secret': 'schema-generation',
    'admin-secret': 'schema-generation',
    'jwt-type': 'RS256',
  });
}

/** The committed file's text for a plugin list (the default distribution unless told otherwise). */
export function renderSchemaFile(plugins: readonly AnyPlugin[] = defaultPlugins): string {
  return HEADER + buildSdl(operationTable(plugins, minimalConfig(plugins)));
}
