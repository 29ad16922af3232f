/**
 * The `outbound` plugin: the guarded HTTP client every plugin uses for URLs that users or admins
 * supply (docs/outbound.md). `--outbound-allow-cidrs` lists the networks it may
 * reach beyond the public internet.
 */
import { definePlugin } from '../../core/plugin.js';
import { createAddressPolicy, parseAllowCidrs } from './address-policy.js';
import { createOutboundClient, type OutboundService } from './client.js';

export { OutboundError, findOutboundError, type OutboundErrorCode } from './errors.js';
export { createAddressPolicy, type AddressPolicy } from './address-policy.js';
export {
  createOutboundClient,
  outboundUrl,
  type GuardedFetch,
  type OutboundClient,
  type OutboundRequestInit,
  type OutboundResponse,
  type OutboundService,
} from './client.js';
export type { Resolver, ResolvedAddress } from './guarded-connector.js';

declare module '../../core/services.js' {
  interface Services {
    outbound: OutboundService;
  }
}

export const OUTBOUND_ALLOW_CIDRS = 'outbound-allow-cidrs';

export const outboundPlugin = definePlugin<OutboundService>({
  name: 'outbound',
  description: 'Guarded outbound HTTP client: refuses private, loopback and metadata addresses, pins the resolved one.',
  flags: [
    {
      name: OUTBOUND_ALLOW_CIDRS,
      type: 'list',
      default: [],
      description:
        'Comma-separated CIDRs the outbound client (webhooks, metadata documents) may reach beyond public addresses, e.g. 10.1.0.0/16 or 127.0.0.1/32.',
    },
  ],
  validateConfig: (config) => {
    try {
      parseAllowCidrs(config.list(OUTBOUND_ALLOW_CIDRS));
      return undefined;
    } catch {
      return `--${OUTBOUND_ALLOW_CIDRS} must list CIDRs or addresses (e.g. 10.0.0.0/8,127.0.0.1/32)`;
    }
  },
  setup: (ctx) => {
    const client = createOutboundClient({ policy: createAddressPolicy(ctx.config.list(OUTBOUND_ALLOW_CIDRS)) });
    ctx.onClose(() => client.close());
    const service: OutboundService = { fetch: client.fetch, guardedFetch: client.guardedFetch, policy: client.policy };
    return service;
  },
});
