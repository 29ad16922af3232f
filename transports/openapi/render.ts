/** The committed transports/openapi/openapi.json for the default distribution (`npm run generate`). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defaultOperationTable } from '../default-build.js';
import { buildOpenApi } from './openapi.js';

export const OPENAPI_FILE = fileURLToPath(new URL('./openapi.json', import.meta.url));

export function renderOpenApi(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return `${JSON.stringify(buildOpenApi(defaultOperationTable(), pkg.version), null, 2)}\n`;
}
