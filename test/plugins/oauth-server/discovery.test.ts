/**
 * Discovery advertises only what is built: dynamic registration and client id metadata documents
 * are not (their flags are placeholders), so their flags set on must not announce an endpoint that
 * answers 404.
 */
import t from 'tap';
import { Config } from '../../../core/config.js';
import { discoveryDocument } from '../../../plugins/oauth-server/discovery.js';

t.test('unbuilt features are not advertised, whatever their flags say', async (t) => {
  const config = new Config({
    url: 'https://auth.example.com',
    'enable-dynamic-client-registration': true,
    'enable-client-id-metadata-document': true,
  });
  const doc = discoveryDocument(config, 'RS256', ['authorization_code', 'refresh_token']);
  t.equal(doc.issuer, 'https://auth.example.com', 'a real document');
  t.notOk('registration_endpoint' in doc, 'no registration_endpoint: POST /oauth/register does not exist');
  t.equal(doc.client_id_metadata_document_supported, false);
});
