#!/usr/bin/env node
// `npm run build`: compiles the library, plugins, kernel, storage, transports and the binary into
// dist/ (JavaScript and .d.ts, tsconfig.build.json), then copies the files they read at run time
// (the committed .proto, .graphql and .json artifacts) next to the compiled modules.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (result.status !== 0) process.exit(result.status ?? 1);

const ASSETS = new Set(['.proto', '.graphql', '.json']);
function copyAssets(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) copyAssets(path);
    else if (ASSETS.has(extname(entry.name))) {
      const target = join(dist, relative(root, path));
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(path, target);
    }
  }
}
for (const dir of ['core', 'plugins', 'providers', 'storage', 'transports']) copyAssets(join(root, dir));
chmodSync(join(dist, 'bin', 'latchkey.js'), 0o755);
