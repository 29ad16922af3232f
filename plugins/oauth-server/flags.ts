/**
 * Flags of the OAuth server (moved from the placeholders).
 * Dynamic registration and client id metadata documents are not built: their flags stay with the
 * placeholders (`planned-client-registration`), and discovery does not advertise them.
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
