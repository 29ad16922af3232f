/**
 * Latchkey as a framework: define plugins, compose builds, start or embed a server.
 *   import { createServer, defaultPlugins, definePlugin, latchkey } from 'latchkey';
 */
export * from './core/index.js';
export {
  accountPlugins,
  auditPlugins,
  authorizationPlugins,
  basePlugins,
  defaultPlugins,
  oauthPlugins,
} from './plugins/default.js';
export { mfaPlugins } from './plugins/mfa/plugins.js';
export { createServer, type LatchkeyServer, type CreateServerOptions } from './transports/http/server.js';
export { latchkey, type LatchkeyPluginOptions } from './transports/http/embed.js';
export { holdResponsesPerTurn } from './transports/http/held-responses.js';
export { runCli } from './transports/cli/run.js';
