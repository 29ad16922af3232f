/**
 * The SDL of the default distribution, as committed in `schema.graphql` (generated
 * documents are committed and a test fails on drift). The operation table is computed without
 * booting, from `defaultPlugins` and a configuration holding only the flags every start needs.
 */
import { fileURLToPath } from 'node:url';
import type { AnyPlugin } from '../../core/plugin.js';
import { defaultPlugins } from '../../plugins/default.js';
import { defaultOperationTable } from '../default-build.js';
import { buildSdl } from './sdl.js';

export const SCHEMA_FILE = fileURLToPath(new URL('./schema.graphql', import.meta.url));

const HEADER = '# Generated from the operation table by npm run generate; do not edit by hand.\n\n';

/** The committed file's text for a plugin list (the default distribution unless told otherwise). */
export function renderSchemaFile(plugins: readonly AnyPlugin[] = defaultPlugins): string {
  return HEADER + buildSdl(defaultOperationTable(plugins));
}
