/**
 * The package's own package.json, found by walking up from this module: the sources sit one folder
 * below it (core/), the compiled build two (dist/core/).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PackageInfo {
  name: string;
  version: string;
}

let cached: PackageInfo | undefined;

export function packageInfo(): PackageInfo {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as PackageInfo;
      if (pkg.name === 'latchkey') return (cached = { name: pkg.name, version: pkg.version });
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json of latchkey not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}
