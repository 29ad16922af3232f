/**
 * Discovery advertises only what is served: the document alone names neither dynamic
 * registration nor client ID metadata documents, whatever their flags say; the route adds them
 * where their plugins run (test/plugins/client-registration, test/plugins/client-metadata).
 */
import t from 'tap';
import { Config } from '../../../core/config.js';
import { discoveryDocument } from '../../../plugins/oauth-server/discovery.js';

t.test('the document alone advertises no optional feature, whatever the flags say', async (t) => {
  const config = new Config({
    url: 'https://auth.example.com',
    'enable-dynamic-client-registration': true,
    'enable-client-id-metadata-document': true,
  });
  const doc = discoveryDocument(config, 'RS256', ['authorization_code', 'refresh_token']);
  t.equal(doc.issuer, 'https://auth.example.com', 'a real document');
  t.notOk('registration_endpoint' in doc, 'no registration_endpoint without the registration route');
  t.equal(doc.client_id_metadata_document_supported, false);
});
