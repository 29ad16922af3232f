/** The relying party of every ceremony: RP ID and origin come from `--url` only, never from request headers. */
import type { Config } from '../../core/config.js';

export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

export function relyingPartyOf(config: Config): RelyingParty {
  const url = new URL(config.string('url') ?? 'http://localhost');
  return { id: url.hostname, origin: url.origin, name: config.string('organization-name', 'Latchkey') };
}
