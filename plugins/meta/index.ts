/**
 * The `meta` operation (SPEC.md: GET /v1/meta returns Meta directly): feature flags and provider
 * availability, contributed by each plugin's `meta` function.
 */
import { readFileSync } from 'node:fs';
import type { TSchema } from '@sinclair/typebox';
import { defineOperation } from '../../core/operations.js';
import { definePlugin } from '../../core/plugin.js';
import { CONTRACT_META_FLAGS, metaSchema } from './schema.js';

const VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export const metaPlugin = definePlugin({
  name: 'meta',
  description: 'Feature flags and provider availability (Meta).',
  operations: ({ plugins }) => {
    const extra: Record<string, TSchema> = {};
    for (const p of plugins) Object.assign(extra, p.metaFields ?? {});
    return [
      defineOperation({
        name: 'meta',
        kind: 'query',
        access: 'public',
        description: 'Feature flags and provider availability.',
        rest: { method: 'GET' },
        mcp: true,
        output: metaSchema(extra),
        handler: async (ctx) => {
          const values = ctx.kernel.metaValues();
          const out: Record<string, unknown> = { version: VERSION, client_id: ctx.kernel.config.string('client-id') ?? '' };
          for (const f of CONTRACT_META_FLAGS) out[f] = values[f] === true;
          for (const k of Object.keys(extra)) out[k] = values[k] ?? false;
          return out;
        },
      }),
    ];
  },
});
