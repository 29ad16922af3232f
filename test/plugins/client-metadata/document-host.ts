/**
 * A local https host for client metadata documents: node:https on 127.0.0.1 with a certificate
 * for `localhost` and 127.0.0.1 made by openssl for this run, which this test process trusts
 * through Node's documented `tls.setDefaultCACertificates` (the certificate is added to the
 * default trust store of this process only; the service's guarded client is unchanged and still
 * needs `--outbound-allow-cidrs` to reach loopback). Each path answers what the test sets, and
 * counts the requests it receives.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';

export interface Served {
  status?: number;
  headers?: Record<string, string>;
  body: string;
}

export interface DocumentHost {
  /** https://localhost:<port> */
  url: string;
  /** The same host by IP literal: https://127.0.0.1:<port> */
  ipUrl: string;
  serve(path: string, answer: Served): void;
  /** Serves `document` as JSON at `path` (with optional headers) and returns the URL. */
  serveJson(path: string, document: unknown, headers?: Record<string, string>): string;
  hits(path: string): number;
  close(): Promise<void>;
}

function makeCertificate(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-cimd-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function startDocumentHost(): Promise<DocumentHost> {
  const { cert, key } = makeCertificate();
  setDefaultCACertificates([...getCACertificates('default'), cert]);
  const answers = new Map<string, Served>();
  const counts = new Map<string, number>();
  const server = createServer({ cert, key }, (req, res) => {
    const path = req.url ?? '';
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const answer = answers.get(path);
    if (!answer) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(answer.status ?? 200, answer.headers ?? {}).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `https://localhost:${port}`;
  return {
    url,
    ipUrl: `https://127.0.0.1:${port}`,
    serve: (path, answer) => answers.set(path, answer),
    serveJson(path, document, headers = {}) {
      answers.set(path, {
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(document),
      });
      return url + path;
    },
    hits: (path) => counts.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
