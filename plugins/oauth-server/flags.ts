/** Flags of the OAuth server (SPEC.md "Startup configuration"; moved from the placeholders). */
import type { FlagDeclaration } from '../../core/config.js';

export const oauthServerFlags: FlagDeclaration[] = [
  { name: 'default-authorize-response-type', type: 'string', default: 'token', choices: ['code', 'token'], description: 'Default response_type of /authorize.' },
  { name: 'default-authorize-response-mode', type: 'string', default: 'query', choices: ['query', 'fragment', 'form_post', 'web_message'], description: 'Default response_mode of /authorize.' },
  { name: 'enable-client-id-metadata-document', type: 'boolean', default: false, description: 'Accept https client ids that point at a client metadata document.' },
  { name: 'client-id-metadata-allowed-domains', type: 'list', default: [], description: 'Hosts allowed to serve client metadata documents (empty: any https host).' },
  { name: 'enable-dynamic-client-registration', type: 'boolean', default: false, description: 'Enable POST /oauth/register.' },
];
