/**
 * The default distribution: the plugin list the `latchkey` binary serves. A custom build passes
 * its own list to `createServer({ plugins })`.
 */
import type { AnyPlugin } from '../core/plugin.js';
import { adminPlugin } from './admin/index.js';
import { healthPlugin } from './health/index.js';
import { keysPlugin } from './keys/index.js';
import { metaPlugin } from './meta/index.js';
import { placeholderPlugins } from './placeholders/index.js';
import { serverPlugin } from './server/index.js';

/** The plugins every build needs: the process, keys, admin authentication, health and meta. */
export const basePlugins: AnyPlugin[] = [serverPlugin, keysPlugin, adminPlugin, healthPlugin, metaPlugin];

export const defaultPlugins: AnyPlugin[] = [...basePlugins, ...placeholderPlugins()];
