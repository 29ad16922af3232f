/**
 * Checks of a validated assertion that node-saml leaves to the SP: the assertion's Issuer is the
 * connection's IdP entity id (SAML Profiles §4.1.4.3; node-saml checks it only on logout), the bearer subject
 * confirmation's Recipient and the Response's Destination are this ACS (SAML Profiles §4.1.4.3,
 * §4.1.4.5), and each assertion id is used once (§4.1.4.5: the SP keeps the ids it accepted
 * until they expire), remembered in the memory store.
 */
import type { MemoryStore } from '../../core/memory-store.js';
import type { Profile } from './service-provider.js';
import { RefusedSamlResponse } from './xml-guard.js';

type Node = { $?: Record<string, string>; _?: string; [child: string]: unknown };
const children = (n: Node | undefined, name: string): Node[] => (Array.isArray(n?.[name]) ? (n![name] as Node[]) : []);

export function checkRecipient(profile: Profile, responseXmlDestination: string | null, acsUrl: string): void {
  if (responseXmlDestination !== null && responseXmlDestination !== acsUrl)
    throw new RefusedSamlResponse('the response is addressed to another destination');
  const assertion = (profile.getAssertion?.() as { Assertion?: Node } | undefined)?.Assertion;
  const confirmations = children(children(assertion, 'Subject')[0], 'SubjectConfirmation');
  const recipients = confirmations
    .flatMap((c) => children(c, 'SubjectConfirmationData'))
    .map((d) => d.$?.Recipient)
    .filter((r): r is string => typeof r === 'string');
  if (recipients.length === 0 || recipients.some((r) => r !== acsUrl))
    throw new RefusedSamlResponse('the assertion is meant for another recipient');
}

export function assertionIdOf(profile: Profile): string {
  const id = (profile.getAssertion?.() as { Assertion?: Node } | undefined)?.Assertion?.$?.ID;
  if (typeof id !== 'string' || id.length === 0 || id.length > 256)
    throw new RefusedSamlResponse('the assertion has no id');
  return id;
}

export async function useAssertionOnce(memory: MemoryStore, connectionId: string, id: string, ttlMs: number) {
  if (!(await memory.setIfAbsent(`org-saml:assertion:${connectionId}:${id}`, '1', ttlMs)))
    throw new RefusedSamlResponse('the assertion was already used');
}

export function checkIssuer(profile: Profile, idpEntityId: string): void {
  if (profile.issuer !== idpEntityId) throw new RefusedSamlResponse('the assertion was issued by another entity');
}
