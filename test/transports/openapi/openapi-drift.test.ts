import { readFileSync } from 'node:fs';
import t from 'tap';
import { OPENAPI_FILE, renderOpenApi } from '../../../transports/openapi/render.js';

t.test('the committed OpenAPI document matches the operation table', async (t) => {
  const committed = readFileSync(OPENAPI_FILE, 'utf8');
  t.equal(committed, renderOpenApi(), 'openapi.json drifted: run npm run generate');
});

t.test('the document describes REST paths with the error envelope', async (t) => {
  const doc = JSON.parse(renderOpenApi()) as {
    paths: Record<string, Record<string, unknown>>;
    components: { schemas: Record<string, unknown> };
  };
  t.ok(doc.paths['/v1/meta']?.get, 'GET /v1/meta');
  t.ok(doc.paths['/v1/admin/login']?.post, 'POST /v1/admin/login');
  t.ok(doc.components.schemas.Error, 'error envelope schema');
  t.ok(doc.components.schemas.Meta, 'Meta component named by $id');
});
