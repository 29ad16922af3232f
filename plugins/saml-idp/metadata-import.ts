/**
 * SP metadata pasted by an admin (SAML Metadata §2.4.4): its entity id, its assertion consumer
 * service on the HTTP-POST binding, its signing certificate and its SingleLogoutService
 * (HTTP-Redirect preferred, else HTTP-POST; §2.2.2), read by samlify's metadata
 * parser. Nothing is fetched (no URL in the document is followed) and nothing is stored: the
 * admin creates the service provider from the answer.
 */
import * as samlify from 'samlify';
import { invalidArgument } from '../../core/errors.js';
import { certificateBody, checkedCertificate } from './certificate.js';
import type { SingleLogout, SloBinding } from './service-providers.js';
import { RefusedSamlMessage, withoutDtd } from './xml-guard.js';

export interface ParsedSpMetadata {
  entityId: string;
  acsUrl: string;
  certificate: string | null;
  singleLogout: SingleLogout | null;
}

const first = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? (v[0] as string) : undefined;

export function parseSpMetadata(xml: string): ParsedSpMetadata {
  try {
    withoutDtd(xml);
  } catch (err) {
    if (err instanceof RefusedSamlMessage) throw invalidArgument('metadata_xml must not carry a DTD');
    throw err;
  }
  if (!/SPSSODescriptor/.test(xml)) throw invalidArgument('metadata_xml has no SPSSODescriptor');
  let meta: samlify.ServiceProviderInstance['entityMeta'];
  try {
    meta = samlify.ServiceProvider({ metadata: xml }).entityMeta;
  } catch {
    throw invalidArgument('metadata_xml is not SAML metadata');
  }
  const entityId = meta.getEntityID();
  if (typeof entityId !== 'string' || entityId.length === 0 || entityId.length > 1024)
    throw invalidArgument('metadata_xml has no usable entityID');
  const acsUrl = first(meta.getAssertionConsumerService('post'));
  if (!acsUrl) throw invalidArgument('metadata_xml has no AssertionConsumerService on the HTTP-POST binding');
  const signing = first(meta.getX509Certificate('signing'));
  const certificate = signing ? checkedCertificate(certificateBody(signing), 'the metadata certificate') : null;
  let singleLogout: SingleLogout | null = null;
  for (const binding of ['redirect', 'post'] as SloBinding[]) {
    const url = first(meta.getSingleLogoutService(binding));
    if (url && !singleLogout) singleLogout = { url, binding };
  }
  return { entityId, acsUrl, certificate, singleLogout };
}
