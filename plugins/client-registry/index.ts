/**
 * The client-registry plugin: registered OAuth clients (relying parties and machine identities)
 * with hashed secrets, their admin API, and the `clients` service the OAuth server uses.
 */
import { definePlugin } from '../../core/plugin.js';
import { OAuthClientEntity } from './entities.js';
import { clientOperations } from './operations.js';
import { createClientRegistry, type ClientRegistryService } from './service.js';

export type { ClientDocumentSource, ClientRegistryService, OAuthClient } from './service.js';

declare module '../../core/hooks.js' {
  interface HookPayloads {
    /** After a client is deleted (trusted issuers cascade on it). */
    'client.deleted': { id: string };
  }
}

export const clientRegistryPlugin = definePlugin<ClientRegistryService>({
  name: 'client-registry',
  description: 'Registered OAuth clients with hashed secrets and their admin API.',
  entities: [OAuthClientEntity],
  operations: clientOperations,
  setup: ({ storage, config }) => createClientRegistry(storage, config),
});
