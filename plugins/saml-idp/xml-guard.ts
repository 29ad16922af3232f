/**
 * SAML XML before any parser sees it. SAML messages and metadata never carry a DTD (SAML Core
 * §1.3, SAML Metadata §2.1), so a document with `<!DOCTYPE` or `<!ENTITY` is refused outright:
 * external entities (XXE) and entity expansion (billion laughs) never reach a parser.
 */
export class RefusedSamlMessage extends Error {}

export function withoutDtd(xml: string): string {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new RefusedSamlMessage('a SAML document must not carry a DTD');
  return xml;
}
