/**
 * A provider's flags (`--<provider>-client-id`, `--<provider>-client-secret`,
 * `--<provider>-scopes`) and the endpoint overrides that point it elsewhere: a self-hosted variant
 * (GitHub Enterprise), a sovereign cloud, or a local test server. `--help` lists them with their
 * defaults.
 */
import type { Config, FlagDeclaration } from '../core/config.js';
import { isLoopbackHost } from '../core/own-site.js';
import type { ProviderDescriptor } from './kit-types.js';

export const clientIdFlag = (name: string): string => `${name}-client-id`;
export const clientSecretFlag = (name: string): string => `${name}-client-secret`;
export const scopesFlag = (name: string): string => `${name}-scopes`;
export const issuerFlag = (name: string): string => `${name}-issuer-url`;
export const endpointFlag = (name: string, key: string): string => `${name}-${key}-url`;

export function providerFlags(d: ProviderDescriptor): FlagDeclaration[] {
  const label = d.title ?? (typeof d.label === 'string' ? d.label : d.name);
  const flags: FlagDeclaration[] = [
    { name: clientIdFlag(d.name), type: 'string', description: `${label} OAuth client id.` },
    {
      name: clientSecretFlag(d.name),
      type: 'string',
      secret: true,
      description: `${label} OAuth client secret.`,
    },
    {
      name: scopesFlag(d.name),
      type: 'string',
      description: `${label} scopes, comma- or space-separated (default: ${d.scopes.join(' ')}).`,
    },
  ];
  if (d.issuer !== undefined) {
    flags.push({
      name: issuerFlag(d.name),
      type: 'string',
      ...(typeof d.issuer === 'string' ? { default: d.issuer } : {}),
      description: `${label} issuer URL (OpenID Connect discovery, keys and the ID token's iss); point it at a self-hosted or test issuer.`,
    });
  }
  for (const [key, url] of Object.entries(d.endpoints ?? {})) {
    flags.push({
      name: endpointFlag(d.name, key),
      type: 'string',
      default: url,
      description: `${label} ${key} endpoint; point it at a self-hosted or test server.`,
    });
  }
  return [...flags, ...(d.flags ?? [])];
}

/** Enabled when the client id and secret are set (the Meta field says the same). */
export const providerConfigured = (d: ProviderDescriptor, config: Config): boolean =>
  config.has(clientIdFlag(d.name)) && config.has(clientSecretFlag(d.name));

export function scopesOf(d: ProviderDescriptor, config: Config): string[] {
  const set = (config.string(scopesFlag(d.name)) ?? '').split(/[\s,]+/).filter(Boolean);
  return set.length > 0 ? set : d.scopes;
}

export function issuerOf(d: ProviderDescriptor, config: Config): string | undefined {
  if (d.issuer === undefined) return undefined;
  const set = config.string(issuerFlag(d.name));
  if (set) return set;
  return typeof d.issuer === 'string' ? d.issuer : d.issuer(config);
}

export function endpointsOf(d: ProviderDescriptor, config: Config): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, url] of Object.entries(d.endpoints ?? {}))
    out[key] = config.string(endpointFlag(d.name, key)) || url;
  return out;
}

/**
 * Plain http only to loopback: the tests' local servers. Anything else would send codes, tokens
 * and client secrets in the clear.
 */
export function loopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && isLoopbackHost(url.hostname);
}

export function checkProviderConfig(d: ProviderDescriptor, config: Config): string | undefined {
  if (!providerConfigured(d, config)) return undefined;
  const urls: [string, string][] = [];
  const issuer = issuerOf(d, config);
  if (issuer !== undefined) urls.push([issuerFlag(d.name), issuer]);
  for (const [key, url] of Object.entries(endpointsOf(d, config))) urls.push([endpointFlag(d.name, key), url]);
  for (const [flag, value] of urls) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return `--${flag} must be an absolute URL`;
    }
    if (url.protocol !== 'https:' && !loopbackHttp(url))
      return `--${flag} must be an https URL (http only on loopback)`;
  }
  return d.validateConfig?.(config);
}
