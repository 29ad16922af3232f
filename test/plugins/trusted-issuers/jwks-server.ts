/**
 * A local JWKS host for trusted-issuer tests: node:http on 127.0.0.1 serving one jose-generated
 * key set per path, counting the requests each path receives.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type CryptoKey } from 'jose';

export interface IssuerKey {
  privateKey: CryptoKey;
  /** The JWKS URL serving its public half. */
  jwksUrl: string;
  /** Requests the JWKS URL received. */
  hits(): number;
}

export interface JwksServer {
  url: string;
  addKey(path: string, alg?: 'ES256' | 'RS256'): Promise<IssuerKey>;
  /** Serves an OIDC discovery document for issuer `url` whose `jwks_uri` is the key set at `path`. */
  serveDiscovery(path: string): void;
  close(): Promise<void>;
}

export async function startJwksServer(): Promise<JwksServer> {
  const sets = new Map<string, { keys: unknown[]; hits: number }>();
  const documents = new Map<string, unknown>();
  const server = createServer((req, res) => {
    const document = documents.get(req.url ?? '');
    if (document) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
      return;
    }
    const set = sets.get(req.url ?? '');
    if (!set) {
      res.writeHead(404).end();
      return;
    }
    set.hits++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: set.keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    async addKey(path, alg = 'ES256') {
      const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
      const jwk = { ...(await exportJWK(publicKey)), alg, use: 'sig', kid: `${path}-key` };
      const set = { keys: [jwk], hits: 0 };
      sets.set(path, set);
      return { privateKey, jwksUrl: url + path, hits: () => set.hits };
    },
    serveDiscovery(path) {
      documents.set('/.well-known/openid-configuration', { issuer: url, jwks_uri: url + path });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
