/**
 * The service directory. A plugin that offers a service adds its type here by declaration
 * merging, next to its own code:
 *
 *   declare module '../../core/services.js' { interface Services { accounts: AccountsService } }
 *
 * Dependants then get a typed object from `ctx.service('accounts')` without importing the plugin.
 */
// Empty on purpose: plugins fill it by declaration merging.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Services {}
