/**
 * The service directory. A plugin that offers a service adds its type here by declaration
 * merging, next to its own code:
 *
 *   declare module '../../core/services.js' { interface Services { accounts: AccountsService } }
 *
 * Dependants then get a typed object from `ctx.service('accounts')` without importing the plugin.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface Services {}
