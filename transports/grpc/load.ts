/**
 * Loads generated proto text with @grpc/proto-loader. The loader reads files, so the text goes to a
 * private temporary directory that is removed straight after. (Reflection names the file after the
 * package, `latchkey_v1.proto`, because proto-loader rebuilds descriptors per package.)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSync, type Options, type PackageDefinition } from '@grpc/proto-loader';

export const PROTO_FILE_NAME = 'latchkey.proto';

/** Options shared by the server and clients: snake_case names, int64 as JSON numbers, presence kept. */
export const LOADER_OPTIONS: Readonly<Options> = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: false,
  arrays: true,
  oneofs: true,
};

export function loadProtoText(text: string): PackageDefinition {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-proto-'));
  try {
    writeFileSync(join(dir, PROTO_FILE_NAME), text);
    return loadSync(PROTO_FILE_NAME, { ...LOADER_OPTIONS, includeDirs: [dir] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
