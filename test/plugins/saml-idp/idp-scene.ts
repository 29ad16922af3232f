/**
 * The scene of the SAML IdP tests: Latchkey with the hosted login page and a node-saml service
 * provider, both closed when the test file ends, and the IdP's URLs for the organization `acme`.
 */
import t from 'tap';
import { startLatchkey } from '../../providers/helpers/latchkey.js';
import { NodeSamlSp } from './node-saml-sp.js';

export async function startIdpScene(encryptionKey: string) {
  const latchkey = await startLatchkey({ 'enable-login-page': true, 'encryption-key': encryptionKey });
  t.teardown(() => latchkey.close());
  const sp = new NodeSamlSp();
  await sp.start();
  t.teardown(() => sp.close());
  const base = latchkey.url;
  return {
    latchkey,
    admin: latchkey.admin,
    base,
    sp,
    idpEntityId: `${base}/saml/idp/acme/metadata`,
    ssoUrl: `${base}/saml/idp/acme/sso`,
  };
}
