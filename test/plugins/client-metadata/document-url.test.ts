/**
 * Which client ids are client metadata document URLs, which of them are refused before any
 * fetch, and what `--client-id-metadata-allowed-domains` accepts.
 */
import t from 'tap';
import { Config } from '../../../core/config.js';
import { documentUrl, hostAllowed, urlRefusal } from '../../../plugins/client-metadata/document-url.js';
import { clientMetadataPlugin } from '../../../plugins/client-metadata/index.js';

t.test('an https URL with a path is a document URL; anything else is looked up in the registry', async (t) => {
  t.ok(documentUrl('https://app.example/client.json'));
  t.ok(documentUrl('https://app.example:8443/oauth/client'));
  for (const id of [
    'https://app.example',
    'https://app.example/',
    'http://app.example/client.json',
    'abc123',
    'https://a b/x',
  ])
    t.equal(documentUrl(id), null, id);
});

t.test('refused before any fetch: fragments, user info, dot segments, hosts outside the list', async (t) => {
  const refusal = (id: string, domains: string[] = []) => urlRefusal(id, new URL(id), domains);
  t.equal(refusal('https://app.example/client.json'), undefined);
  t.match(refusal('https://app.example/client.json#x'), /fragment/);
  t.match(refusal('https://user:pw@app.example/client.json'), /user info/);
  for (const id of [
    'https://app.example/a/../client.json',
    'https://app.example/./c.json',
    'https://app.example/a/%2e%2E/c',
  ])
    t.match(refusal(id), /dot path segments/, id);
  t.match(refusal('https://evil.example/client.json', ['app.example']), /evil\.example is not allowed/);
});

t.test('an allowed domain accepts itself and its subdomains, nothing that merely ends like it', async (t) => {
  t.ok(hostAllowed('app.example', ['app.example']));
  t.ok(hostAllowed('agents.app.example', ['APP.example.']));
  t.notOk(hostAllowed('evilapp.example', ['app.example']));
  t.notOk(hostAllowed('app.example.evil', ['app.example']));
  t.ok(hostAllowed('anything.example', []), 'an empty list accepts any host');
});

t.test('the allow-list flag takes host names only', async (t) => {
  const check = (domains: string[]) =>
    clientMetadataPlugin.validateConfig!(new Config({ 'client-id-metadata-allowed-domains': domains }));
  t.equal(check(['app.example', 'localhost', '127.0.0.1']), undefined);
  t.match(check(['*.app.example']), /"\*\.app\.example" is not one/);
  t.match(check(['https://app.example']), /host names/);
});
