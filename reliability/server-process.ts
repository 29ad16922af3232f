/**
 * A real Latchkey server in a child process (`node --import tsx bin/latchkey.ts` with flags), so
 * it can be killed with SIGKILL and started again on the same database. Its output goes to a log
 * file; `resident()` reads its RSS from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/helpers/ports.js';

export const ADMIN_SECRET = 'reliability-admin-secret';
export const CLIENT_ID = 'reliability-client';
export const CLIENT_SECRET = 'reliability-client-secret';

const BIN = fileURLToPath(new URL('../bin/latchkey.ts', import.meta.url));

export type Flags = Record<string, string | number | boolean>;

export interface ServerProcess {
  url: string;
  pid: number;
  /** Resident set size in bytes (Linux /proc). */
  resident(): number;
  /** SIGKILL, and wait for the exit. */
  kill9(): Promise<void>;
  /** SIGTERM, SIGKILL after 10 s. */
  stop(): Promise<void>;
}

/** Ports chosen once per server identity, so a restart serves the same URL. */
export interface ServerPorts {
  http: number;
  grpc: number;
  metrics: number;
}

export async function serverPorts(): Promise<ServerPorts> {
  return { http: await freePort(), grpc: await freePort(), metrics: await freePort() };
}

export async function startServer(ports: ServerPorts, flags: Flags, logFile: string): Promise<ServerProcess> {
  const url = `http://127.0.0.1:${ports.http}`;
  const all: Flags = {
    url,
    host: '127.0.0.1',
    'http-port': ports.http,
    'grpc-port': ports.grpc,
    'metrics-port': ports.metrics,
    'admin-secret': ADMIN_SECRET,
    'client-id': CLIENT_ID,
    'client-secret': CLIENT_SECRET,
    'jwt-type': 'HS256',
    'jwt-secret': 'reliability-jwt-secret-0123456789abcdef0123',
    'log-level': 'warn',
    'rate-limit-per-minute': 0,
    'outbound-allow-cidrs': '127.0.0.1/32',
    'app-cookie-secure': false,
    ...flags,
  };
  const args = Object.entries(all).flatMap(([k, v]) => (v === true ? [`--${k}`] : [`--${k}`, String(v)]));
  const out = openSync(logFile, 'a');
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', BIN, ...args], {
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}; see ${logFile}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not answer /healthz in 90 s; see ${logFile}`);
    }
    const ok = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) })
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const pid = child.pid ?? 0;
  return {
    url,
    pid,
    resident() {
      try {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) * 1024;
      } catch {
        return Number.NaN;
      }
    },
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(timer);
    },
  };
}
