/**
 * The `client-metadata` plugin (`--enable-client-id-metadata-document`): a `client_id` that is
 * an https URL with a path names a client ID metadata document (draft-ietf-oauth-client-id-
 * metadata-document), fetched through the guarded outbound client and cached within bounds. Such
 * a client is self-asserted like a self-registered one: a public client (or `private_key_jwt`
 * with its document's keys), PKCE S256 and the consent screen before any code. Pre-registered
 * clients are looked up first. Discovery advertises `client_id_metadata_document_supported`.
 */
import { definePlugin } from '../../core/plugin.js';
import { createDocumentResolver } from './resolver.js';

export const ENABLE_FLAG = 'enable-client-id-metadata-document';
export const ALLOWED_DOMAINS_FLAG = 'client-id-metadata-allowed-domains';
/** A DNS host name or an IP literal without brackets: letters, digits, dots, hyphens, colons. */
const HOST_NAME = /^\.?[a-z0-9]([a-z0-9.:-]*[a-z0-9])?$/i;

export interface ClientMetadataService {
  /** The hosts allowed to serve documents (empty: any https host). */
  readonly allowedDomains: readonly string[];
}

declare module '../../core/services.js' {
  interface Services {
    'client-metadata': ClientMetadataService;
  }
}

export const clientMetadataPlugin = definePlugin<ClientMetadataService>({
  name: 'client-metadata',
  description:
    'Client ID metadata documents: https client ids fetched through the guarded outbound client (consent and PKCE required).',
  dependsOn: ['outbound', 'client-registry', 'oauth-server'],
  enabled: (config) => config.bool(ENABLE_FLAG),
  flags: [
    {
      name: ENABLE_FLAG,
      type: 'boolean',
      default: false,
      description:
        'Accept https client ids that point at a client metadata document (fetched through the guarded outbound client; consent and PKCE S256 required).',
    },
    {
      name: ALLOWED_DOMAINS_FLAG,
      type: 'list',
      default: [],
      description:
        'Hosts allowed to serve client metadata documents, each with its subdomains (empty: any https host).',
    },
  ],
  validateConfig: (config) => {
    const bad = config.list(ALLOWED_DOMAINS_FLAG).find((d) => !HOST_NAME.test(d.trim()));
    return bad === undefined
      ? undefined
      : `--${ALLOWED_DOMAINS_FLAG} lists host names (each allows its subdomains, no wildcards or URLs): ${JSON.stringify(bad)} is not one`;
  },
  setup: (ctx) => {
    const allowedDomains = ctx.config.list(ALLOWED_DOMAINS_FLAG);
    ctx
      .service('client-registry')
      .useDocumentSource(createDocumentResolver({ outbound: ctx.service('outbound'), allowedDomains }));
    return { allowedDomains };
  },
});
