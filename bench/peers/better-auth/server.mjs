/**
 * The better-auth peer of bench/accounts: better-auth's own Node handler on 127.0.0.1, email and
 * password enabled, SQLite in a temporary file through better-sqlite3 (better-auth's documented
 * SQLite setup), its schema created by better-auth's migrations. Defaults otherwise: scrypt
 * password hashing (node:crypto, N=16384 r=16 p=1), database sessions. Its rate limiter is off,
 * as Latchkey's is in the bench. Started by bench/accounts/peer.ts with fork(); reports
 * `{ ready, url, origin }` over IPC and exits on 'close'.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { toNodeHandler } from 'better-auth/node';

const dir = mkdtempSync(join(tmpdir(), 'better-auth-peer-'));
const db = new Database(join(dir, 'auth.db'));
// The journal mode better-auth's SQLite guide does not set; WAL is what a server would use.
db.pragma('journal_mode = WAL');

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;

const auth = betterAuth({
  database: db,
  baseURL: origin,
  secret: 'bench-peer-secret-bench-peer-secret-0123456789',
  emailAndPassword: { enabled: true },
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
  logger: { disabled: true },
});
const { runMigrations } = await getMigrations(auth.options);
await runMigrations();

server.on('request', toNodeHandler(auth));
process.send?.({ ready: true, url: origin, origin });

process.on('message', (m) => {
  if (m !== 'close') return;
  server.close(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
  server.closeAllConnections();
});
