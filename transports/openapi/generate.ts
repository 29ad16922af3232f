/**
 * Writes transports/openapi/openapi.json for the default distribution.
 *   npx tsx transports/openapi/generate.ts          write the file
 *   npx tsx transports/openapi/generate.ts --check  exit 1 when the committed file differs
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { operationTable } from '../../core/operation-table.js';
import { defaultPlugins } from '../../plugins/default.js';
import { minimalConfig } from '../graphql/default-schema.js';
import { buildOpenApi } from './openapi.js';

export const OPENAPI_FILE = fileURLToPath(new URL('./openapi.json', import.meta.url));

export function renderOpenApi(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return `${JSON.stringify(buildOpenApi(operationTable(defaultPlugins, minimalConfig(defaultPlugins)), pkg.version), null, 2)}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const expected = renderOpenApi();
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(OPENAPI_FILE, 'utf8');
    } catch {
      // missing counts as drift
    }
    if (current !== expected) {
      process.stderr.write(`${OPENAPI_FILE} is out of date: run npx tsx transports/openapi/generate.ts\n`);
      process.exit(1);
    }
  } else {
    writeFileSync(OPENAPI_FILE, expected);
    process.stdout.write(`wrote ${OPENAPI_FILE}\n`);
  }
}
