/**
 * The connect step of the guarded client: the address is checked when the connection is made,
 * not before, and the checked address is the one connected to. A host name is resolved once per
 * connection by the `lookup` given to net/tls.connect, which refuses or answers one checked
 * address: a DNS answer that changes between a check and the connect (DNS rebinding) has no
 * second resolution to change. An IP literal skips `lookup` in Node, so it is checked here first.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { buildConnector } from 'undici';
import type { AddressPolicy } from './address-policy.js';
import { OutboundError } from './errors.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses (default: the system resolver, as every Node client). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

/**
 * The single address a connection to `hostname` uses: refused when any answer is refused (an
 * answer mixing public and private addresses is the shape of a rebinding attempt).
 */
export async function checkedAddress(
  hostname: string,
  policy: AddressPolicy,
  resolve: Resolver,
): Promise<ResolvedAddress> {
  let answers: ResolvedAddress[];
  try {
    answers = await resolve(hostname);
  } catch (err) {
    throw new OutboundError('dns_failure', `${hostname} could not be resolved`, { cause: err });
  }
  if (answers.length === 0) throw new OutboundError('dns_failure', `${hostname} has no address`);
  for (const a of answers) {
    const refusal = policy.refusal(a.address);
    if (refusal) throw new OutboundError('address_refused', `${hostname} resolves to ${refusal}`);
  }
  return answers[0];
}

export function guardedConnector(
  policy: AddressPolicy,
  resolve: Resolver,
  connectTimeoutMs: number,
): buildConnector.connector {
  const lookup: LookupFunction = (hostname, options, callback) => {
    checkedAddress(hostname, policy, resolve).then(
      ({ address, family }) => {
        // Node asks for every address when it races IPv4 and IPv6 (autoSelectFamily): it gets
        // the one checked address either way.
        if (options.all) (callback as (e: null, a: ResolvedAddress[]) => void)(null, [{ address, family }]);
        else callback(null, address, family);
      },
      (err: Error) => callback(err as NodeJS.ErrnoException, '', 0),
    );
  };
  const connect = buildConnector({ timeout: connectTimeoutMs, lookup });
  return (options, callback) => {
    const literal = options.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(literal) !== 0) {
      const refusal = policy.refusal(literal);
      if (refusal) {
        callback(new OutboundError('address_refused', refusal), null);
        return;
      }
    }
    connect(options, callback);
  };
}
