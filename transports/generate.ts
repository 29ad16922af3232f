/**
 * `npm run generate`: rewrites every committed, generated artifact (the GraphQL SDL, the .proto
 * and the OpenAPI document, all projections of one operation table, and README's configuration
 * section); `npm run generate -- --check` exits 1 and names the stale files instead.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { README_FILE, renderReadme } from './cli/flags-markdown.js';
import { COMMITTED_PROTO_PATH, defaultDistributionProto } from './grpc/default-proto.js';
import { renderSchemaFile, SCHEMA_FILE } from './graphql/default-schema.js';
import { OPENAPI_FILE, renderOpenApi } from './openapi/render.js';

const read = (path: string): string => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

export const artifacts: { path: string; render: () => string }[] = [
  { path: SCHEMA_FILE, render: () => renderSchemaFile() },
  { path: COMMITTED_PROTO_PATH, render: defaultDistributionProto },
  { path: OPENAPI_FILE, render: renderOpenApi },
  { path: README_FILE, render: () => renderReadme(read(README_FILE)) },
];

const check = process.argv.includes('--check');
let stale = 0;
for (const a of artifacts) {
  const expected = a.render();
  if (read(a.path) === expected) continue;
  if (check) {
    stale++;
    process.stderr.write(`${a.path} is out of date: run npm run generate\n`);
  } else {
    writeFileSync(a.path, expected);
    process.stdout.write(`wrote ${a.path}\n`);
  }
}
if (stale > 0) process.exit(1);
