#!/usr/bin/env node
// `npm start`: the development preset. SQLite file and secrets under ./data (secrets generated on
// the first run, kept in data/dev-secrets.json and printed once), --url http://localhost:8080.
// It serves the hosted login page (/app) and the GraphQL playground, and runs the compiled binary
// (dist/, written by `npm run build`, which `npm start` runs first). It only supplies flags: the
// binary still enforces every required one. Extra arguments are passed through
// (npm start -- --log-level debug).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = join(root, 'data');
const secretsFile = join(dataDir, 'dev-secrets.json');
mkdirSync(dataDir, { recursive: true, mode: 0o700 });

let secrets;
if (existsSync(secretsFile)) {
  secrets = JSON.parse(readFileSync(secretsFile, 'utf8'));
} else {
  const s = () => randomBytes(32).toString('base64url');
  secrets = {
    adminSecret: s(),
    clientId: `dev-${randomBytes(6).toString('hex')}`,
    clientSecret: s(),
    jwtSecret: s(),
    encryptionKey: s(),
  };
  writeFileSync(secretsFile, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  process.stdout.write(
    [
      'Development secrets generated (kept in data/dev-secrets.json; shown only this once):',
      `  admin secret:  ${secrets.adminSecret}`,
      `  client id:     ${secrets.clientId}`,
      `  client secret: ${secrets.clientSecret}`,
      '',
    ].join('\n'),
  );
}

const args = [
  join(root, 'dist', 'bin', 'latchkey.js'),
  '--env',
  'development',
  '--database-type',
  'sqlite',
  '--database-url',
  join(dataDir, 'latchkey.db'),
  '--url',
  'http://localhost:8080',
  '--http-port',
  '8080',
  '--host',
  '127.0.0.1',
  '--admin-secret',
  secrets.adminSecret,
  '--client-id',
  secrets.clientId,
  '--client-secret',
  secrets.clientSecret,
  '--jwt-type',
  'HS256',
  '--jwt-secret',
  secrets.jwtSecret,
  '--encryption-key',
  secrets.encryptionKey,
  '--app-cookie-secure',
  'false',
  '--enable-playground',
  '--enable-login-page',
  ...process.argv.slice(2),
];
const child = spawn(process.execPath, args, { stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
