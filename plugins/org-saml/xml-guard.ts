/**
 * The posted SAMLResponse before any XML parser sees it: base64 of at most 256 KiB, decoded, with
 * no document type declaration. SAML messages never carry a DTD (SAML Core §1.3: "SAML
 * messages ... MUST NOT contain a DTD"), so refusing any `<!DOCTYPE` or `<!ENTITY` shuts out
 * external entities (XXE) and entity expansion (billion laughs) whatever the parser does.
 */
const MAX_ENCODED = 256 * 1024;

export class RefusedSamlResponse extends Error {}

export function decodedResponse(encoded: unknown): string {
  if (typeof encoded !== 'string' || encoded.length === 0) throw new RefusedSamlResponse('SAMLResponse is missing');
  if (encoded.length > MAX_ENCODED) throw new RefusedSamlResponse('SAMLResponse is too large');
  if (!/^[A-Za-z0-9+/=\r\n]+$/.test(encoded)) throw new RefusedSamlResponse('SAMLResponse is not base64');
  const xml = Buffer.from(encoded, 'base64').toString('utf8');
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new RefusedSamlResponse('a SAML message must not carry a DTD');
  return xml;
}
