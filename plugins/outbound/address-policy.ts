/**
 * Which addresses the guarded client may connect to (outbound fetches of
 * user-supplied URLs never reach the service's own network). Only public unicast addresses pass;
 * everything ipaddr.js classes otherwise is refused: private (RFC 1918), loopback, link-local
 * (169.254.0.0/16, where cloud metadata answers at 169.254.169.254), carrier-grade NAT
 * (RFC 6598), unique-local IPv6 (fc00::/7, holding AWS's fd00:ec2::254), multicast, reserved,
 * unspecified, and the IPv6 forms that embed an IPv4 address (mapped, NAT64, 6to4, Teredo), whose
 * target the kernel would reach as IPv4. `--outbound-allow-cidrs` lists the exceptions
 * (receivers on the deployment's own network; tests' 127.0.0.1/32).
 */
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

export interface AddressPolicy {
  /** Why `address` is refused, or undefined when it may be connected to. */
  refusal(address: string): string | undefined;
  /** The allowed CIDRs as given (for logs and docs). */
  readonly allowed: readonly string[];
}

/** Throws on an entry that is not a CIDR or an address (checked at boot by the plugin). */
export function parseAllowCidrs(entries: readonly string[]): [Address, number][] {
  return entries
    .map((e) => e.trim())
    .filter((e) => e !== '')
    .map((e) => {
      if (e.includes('/')) {
        const [addr, bits] = ipaddr.parseCIDR(e);
        return [unmapped(addr), addr.kind() === 'ipv6' && unmapped(addr).kind() === 'ipv4' ? bits - 96 : bits];
      }
      const addr = unmapped(ipaddr.parse(e));
      return [addr, addr.kind() === 'ipv4' ? 32 : 128];
    });
}

/** An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is the IPv4 address it carries. */
function unmapped(addr: Address): Address {
  return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()
    ? (addr as ipaddr.IPv6).toIPv4Address()
    : addr;
}

export function createAddressPolicy(allowCidrs: readonly string[]): AddressPolicy {
  const allowed = parseAllowCidrs(allowCidrs);
  return {
    allowed: [...allowCidrs],
    refusal(text) {
      let addr: Address;
      try {
        addr = unmapped(ipaddr.parse(text.replace(/^\[(.*)\]$/, '$1')));
      } catch {
        return `"${text}" is not an IP address`;
      }
      if (allowed.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net, bits))) return undefined;
      const range = addr.range();
      if (range === 'unicast') return undefined;
      return `${addr.toString()} is a ${range} address, not public (allow it with --outbound-allow-cidrs)`;
    },
  };
}
