/**
 * The `meta` operation (GET /v1/meta returns Meta directly): feature flags and provider
 * availability, contributed by each plugin's `meta` function.
 */
import type { TSchema } from '@sinclair/typebox';
import { defineOperation } from '../../core/operations.js';
import type { Kernel } from '../../core/kernel.js';
import { definePlugin } from '../../core/plugin.js';
import { packageInfo } from '../../core/package-info.js';
import { CONTRACT_META_FLAGS, metaSchema } from './schema.js';

const VERSION: string = packageInfo().version;

const built = new WeakMap<Kernel, Record<string, unknown>>();

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
        // Meta depends only on the configuration (see the handler), so REST and gRPC send bytes made once.
        rest: { method: 'GET' },
        constantOutput: true,
        mcp: true,
        output: metaSchema(extra),
        handler: async (ctx) => {
          // The configuration never changes after boot, so neither does Meta: built once per
          // kernel, copied per call so no caller can change what the next one sees.
          let meta = built.get(ctx.kernel);
          if (!meta) {
            const values = ctx.kernel.metaValues();
            const draft: Record<string, unknown> = {
              version: VERSION,
              client_id: ctx.kernel.config.string('client-id') ?? '',
            };
            for (const f of CONTRACT_META_FLAGS) draft[f] = values[f] === true;
            for (const k of Object.keys(extra)) draft[k] = values[k] ?? false;
            // Two dozen keys added one by one leave V8 a slow dictionary-mode object, whose
            // per-call copy measured ~5 us; a spread copy is a fast-properties object (~0.03 us).
            meta = { ...draft };
            built.set(ctx.kernel, meta);
          }
          return { ...meta };
        },
      }),
    ];
  },
});
