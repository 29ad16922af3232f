/**
 * Flags of the OAuth server. Dynamic registration and client ID metadata documents have plugins
 * of their own (client-registration, client-metadata), which declare their flags.
 */
import type { FlagDeclaration } from '../../core/config.js';

export const oauthServerFlags: FlagDeclaration[] = [
  {
    name: 'default-authorize-response-type',
    type: 'string',
    default: 'token',
    choices: ['code', 'token'],
    description: 'Default response_type of /authorize.',
  },
  {
    name: 'default-authorize-response-mode',
    type: 'string',
    default: 'query',
    choices: ['query', 'fragment', 'form_post', 'web_message'],
    description: 'Default response_mode of /authorize.',
  },
];
