/**
 * The GraphQL playground (`--enable-playground`): GraphiQL at `GET /graphiql`,
 * working offline and under a content-security policy. Its scripts and styles are the UMD builds
 * of graphiql 3, react 18 and react-dom 18 from this server's own dependencies, served under
 * `/graphiql/assets/`; the page's one inline script (which mounts GraphiQL on `/graphql`) is
 * allowed by its SHA-256 hash, so the page's policy names no 'unsafe-inline' script and no other
 * origin. The policy is this page's alone: every other response keeps `default-src 'none'`.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';

export const PLAYGROUND_PATH = '/graphiql';
const ASSETS = `${PLAYGROUND_PATH}/assets`;

interface Asset {
  /** The package the file ships in, and its path inside that package. */
  pkg: string;
  file: string;
  type: string;
}

const JS = 'text/javascript; charset=utf-8';
const ASSET_FILES: Readonly<Record<string, Asset>> = {
  'react.js': { pkg: 'react', file: 'umd/react.production.min.js', type: JS },
  'react-dom.js': { pkg: 'react-dom', file: 'umd/react-dom.production.min.js', type: JS },
  'graphiql.js': { pkg: 'graphiql', file: 'graphiql.min.js', type: JS },
  'graphiql.css': { pkg: 'graphiql', file: 'graphiql.min.css', type: 'text/css; charset=utf-8' },
};

/** Mounts GraphiQL on the GraphQL endpoint of the page's own origin. */
const BOOT_SCRIPT = [
  "const fetcher = GraphiQL.createFetcher({ url: new URL('/graphql', location.href).href });",
  "ReactDOM.createRoot(document.getElementById('graphiql')).render(React.createElement(GraphiQL, { fetcher }));",
].join('\n');

/** The page's own layout: GraphiQL fills the window. */
const PAGE_STYLE = 'html, body, #graphiql { height: 100%; margin: 0; }';

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

export const PLAYGROUND_CSP = [
  "default-src 'none'",
  `script-src 'self' ${sha256(BOOT_SCRIPT)}`,
  `style-src 'self' ${sha256(PAGE_STYLE)}`,
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Latchkey GraphQL playground</title>
    <link rel="stylesheet" href="${ASSETS}/graphiql.css">
    <style>${PAGE_STYLE}</style>
  </head>
  <body>
    <div id="graphiql">Loading the playground…</div>
    <script src="${ASSETS}/react.js"></script>
    <script src="${ASSETS}/react-dom.js"></script>
    <script src="${ASSETS}/graphiql.js"></script>
    <script>${BOOT_SCRIPT}</script>
  </body>
</html>
`;

function loadAssets(): Map<string, { body: Buffer; type: string }> {
  const require = createRequire(import.meta.url);
  const out = new Map<string, { body: Buffer; type: string }>();
  for (const [name, asset] of Object.entries(ASSET_FILES)) {
    // Each package exports its package.json; the UMD files themselves are not in its exports map.
    const dir = dirname(require.resolve(`${asset.pkg}/package.json`));
    out.set(name, { body: readFileSync(join(dir, asset.file)), type: asset.type });
  }
  return out;
}

export function registerPlayground(app: FastifyInstance): void {
  const assets = loadAssets();
  app.get(PLAYGROUND_PATH, (_request, reply) => {
    void reply
      .header('content-security-policy', PLAYGROUND_CSP)
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(PAGE);
  });
  app.get<{ Params: { name: string } }>(`${ASSETS}/:name`, (request, reply) => {
    const asset = assets.get(request.params.name);
    if (!asset) return reply.code(404).send({ code: 'not_found', message: 'route not found' });
    return reply.header('cache-control', 'public, max-age=3600').type(asset.type).send(asset.body);
  });
}
