/** The committed transports/openapi/openapi.json for the default distribution (`npm run generate`). */
import { packageInfo } from '../../core/package-info.js';
import { fileURLToPath } from 'node:url';
import { defaultOperationTable } from '../default-build.js';
import { buildOpenApi } from './openapi.js';

export const OPENAPI_FILE = fileURLToPath(new URL('./openapi.json', import.meta.url));

export function renderOpenApi(): string {
  return `${JSON.stringify(buildOpenApi(defaultOperationTable(), packageInfo().version), null, 2)}\n`;
}
