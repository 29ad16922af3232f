/**
 * The better-auth peer (bench/peers/better-auth): installed on first use with `npm ci` from its
 * own lock file (its optional peer dependencies conflict with the root tree, so it is not a root
 * dependency), then started as a child process like every other party.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { partyOf, startProcess, type Party } from './parties.js';

const DIR = fileURLToPath(new URL('../peers/better-auth/', import.meta.url));

export function ensurePeerInstalled(): void {
  if (
    existsSync(`${DIR}node_modules/better-auth/package.json`) &&
    existsSync(`${DIR}node_modules/better-sqlite3/build/Release/better_sqlite3.node`)
  )
    return;
  process.stderr.write('bench: installing the better-auth peer (npm ci in bench/peers/better-auth)...\n');
  // better-sqlite3 builds a native module; --legacy-peer-deps is also in the folder's .npmrc.
  execFileSync('npm', ['ci', '--legacy-peer-deps', '--no-audit', '--no-fund'], {
    cwd: DIR,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

export async function startPeer(): Promise<Party> {
  ensurePeerInstalled();
  const { child, ready } = await startProcess(`${DIR}server.mjs`, [], [], { cwd: DIR });
  return partyOf(child, ready);
}
