/**
 * Writes transports/graphql/schema.graphql from the default distribution's operation table.
 *   npx tsx transports/graphql/generate.ts          write the file
 *   npx tsx transports/graphql/generate.ts --check  exit 1 when the committed file differs
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { renderSchemaFile, SCHEMA_FILE } from './default-schema.js';

const expected = renderSchemaFile();
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(SCHEMA_FILE, 'utf8');
  } catch {
    // A missing file is drift like any other.
  }
  if (current !== expected) {
    process.stderr.write(`${SCHEMA_FILE} is out of date: run npx tsx transports/graphql/generate.ts\n`);
    process.exit(1);
  }
  process.stdout.write(`${SCHEMA_FILE} is up to date\n`);
} else {
  writeFileSync(SCHEMA_FILE, expected);
  process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
}
