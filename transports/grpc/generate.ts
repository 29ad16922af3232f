/**
 * Writes transports/grpc/latchkey.proto for the default distribution (DESIGN.md §3: generated
 * documents are committed and a test fails on drift).
 *   npx tsx transports/grpc/generate.ts          write the file
 *   npx tsx transports/grpc/generate.ts --check  exit 1 when the committed file is out of date
 */
import { readFile, writeFile } from 'node:fs/promises';
import { COMMITTED_PROTO_PATH, defaultDistributionProto } from './default-proto.js';

const expected = defaultDistributionProto();
if (process.argv.includes('--check')) {
  const current = await readFile(COMMITTED_PROTO_PATH, 'utf8').catch(() => '');
  if (current !== expected) {
    process.stderr.write(`${COMMITTED_PROTO_PATH} is out of date: run npx tsx transports/grpc/generate.ts\n`);
    process.exit(1);
  }
  process.stdout.write(`${COMMITTED_PROTO_PATH} is up to date\n`);
} else {
  await writeFile(COMMITTED_PROTO_PATH, expected);
  process.stdout.write(`wrote ${COMMITTED_PROTO_PATH}\n`);
}
