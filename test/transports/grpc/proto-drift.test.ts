/**
 * The generated .proto (a projection of the operation table) is committed and must match the
 * operation table of the default distribution. Plugins change the table, so this regenerates and
 * compares.
 */
import { readFile } from 'node:fs/promises';
import t from 'tap';
import { COMMITTED_PROTO_PATH, defaultDistributionProto } from '../../../transports/grpc/default-proto.js';
import { loadProtoText } from '../../../transports/grpc/load.js';

t.test('the committed latchkey.proto matches the default distribution', async (t) => {
  const committed = await readFile(COMMITTED_PROTO_PATH, 'utf8').catch(() => '');
  const generated = defaultDistributionProto();
  if (committed !== generated) {
    t.fail('transports/grpc/latchkey.proto is out of date: run npm run generate and commit the result');
    // The diff says which operations changed.
    t.equal(committed, generated, 'committed vs generated');
  } else {
    t.pass('up to date');
  }
});

t.test('the committed file loads with proto-loader and declares both services', async (t) => {
  const definition = loadProtoText(await readFile(COMMITTED_PROTO_PATH, 'utf8'));
  t.ok(definition['latchkey.v1.AuthorizerService'], 'public service');
  t.ok(definition['latchkey.v1.AuthorizerAdminService'], 'admin service');
});
