/**
 * The `fga` plugin: relationship-based permissions with OpenFGA's model language and semantics,
 * evaluated by our own engine (engine/) over a per-node index of a store (store/). See
 * README.md for what is cached and how writes travel between nodes.
 */
import { definePlugin } from '../../core/plugin.js';
import { disabledFga, type FgaApi } from './api.js';
import { fgaConfigProblem, FGA_STORES, openFgaStore } from './open-store.js';
import { fgaOperations } from './operations.js';
import { CHECK_CACHE_SIZE, FgaService } from './service.js';
import { fgaEntities } from './store/sql-entities.js';

export type { FgaApi } from './api.js';

export const fgaPlugin = definePlugin<FgaApi>({
  name: 'fga',
  description: 'Fine-grained authorization: OpenFGA models and tuples, check, list objects and users.',
  flags: [
    {
      name: 'fga-store',
      type: 'string',
      description: 'Separate FGA store: sqlite, postgres, mysql or memory (not a URI).',
      choices: FGA_STORES,
    },
    {
      name: 'fga-store-url',
      type: 'string',
      description: 'Connection string of the separate FGA store.',
      secret: true,
    },
    {
      name: 'fga-allow-unconstrained-agents',
      type: 'boolean',
      default: false,
      description: 'Migration switch: delegated checks without a model type `agent` use the user alone.',
    },
    {
      name: 'fga-check-cache-size',
      type: 'number',
      default: CHECK_CACHE_SIZE,
      description:
        'Check answers each node remembers until the next change to its tuples or model (0 turns the cache off).',
    },
  ],
  validateConfig: fgaConfigProblem,
  // An FGA reset is recorded; audit and webhook consumers subscribe to it.
  events: ['fga.reset'],
  entities: fgaEntities,
  operations: fgaOperations,
  setup: async (ctx) => {
    const store = await openFgaStore(ctx.config, ctx.storage, ctx.logger);
    if (!store) {
      ctx.logger.info(
        { database: ctx.storage.type },
        'FGA is off: the main database is not SQL and --fga-store is not set',
      );
      return disabledFga;
    }
    const service = await FgaService.open(store, {
      checkCacheSize: ctx.config.number('fga-check-cache-size', CHECK_CACHE_SIZE),
    });
    ctx.onClose(() => service.close());
    return service;
  },
});
