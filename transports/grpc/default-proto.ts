/**
 * The committed `latchkey.proto`: the gRPC surface of the default distribution with only the
 * flags required at startup (transports/default-build.ts), every other flag at its default.
 */
import { fileURLToPath } from 'node:url';
import { defaultOperationTable } from '../default-build.js';
import { buildProto } from './proto.js';

export const COMMITTED_PROTO_PATH = fileURLToPath(new URL('./latchkey.proto', import.meta.url));

export function defaultDistributionProto(): string {
  return buildProto(defaultOperationTable());
}
