/** Shared setup for account tests: a kernel with the account plugins, and small call helpers. */
import type { FlagValue } from '../../../core/config.js';
import type { Kernel } from '../../../core/kernel.js';
import { accountPlugins, basePlugins } from '../../../plugins/default.js';
import type { DbTarget } from '../../helpers/databases.js';
import { bootTestKernel, testContext, type TestKernel, type TestMemoryBackend } from '../../helpers/kernel.js';

export const BASE_FLAGS: Record<string, FlagValue> = {
  url: 'https://auth.example.com',
  'admin-secret': 'admin-secret',
  'client-id': 'client-1',
  'client-secret': 'client-secret',
  'jwt-type': 'HS256',
  'jwt-secret': 'a-test-jwt-secret-of-enough-length-0123456789',
};

/**
 * Account plugins on a kernel whose clock the test moves forward: this process's Date.now,
 * replaced before the kernel boots so its memory store reads it too, and put back by `close`.
 */
export async function bootAccountsWithClock(
  flags: Record<string, FlagValue | undefined> = {},
): Promise<{ kernel: Kernel; advance(ms: number): void; close(): Promise<void> }> {
  const realNow = Date.now;
  let skewMs = 0;
  Date.now = () => realNow() + skewMs;
  const tk = await bootAccounts(flags);
  return {
    kernel: tk.kernel,
    advance: (ms) => void (skewMs += ms),
    async close() {
      await tk.close();
      Date.now = realNow;
    },
  };
}

export async function bootAccounts(
  flags: Record<string, FlagValue | undefined> = {},
  opts: { database?: DbTarget; memory?: TestMemoryBackend } = {},
): Promise<TestKernel> {
  return bootTestKernel({ plugins: [...basePlugins, ...accountPlugins], flags: { ...BASE_FLAGS, ...flags }, ...opts });
}

/** Invokes an operation as an anonymous caller, or with a bearer token / cookies. */
export function call<T = Record<string, unknown>>(
  kernel: Kernel,
  name: string,
  input?: unknown,
  auth: { bearer?: string; cookies?: Record<string, string>; admin?: boolean } = {},
): Promise<T> {
  const headers: Record<string, string> = {};
  if (auth.bearer) headers.authorization = `Bearer ${auth.bearer}`;
  if (auth.admin) headers['x-service-admin-secret'] = 'admin-secret';
  return kernel.invoke(name, testContext(kernel, { headers, cookies: auth.cookies ?? {} }), input) as Promise<T>;
}

/** Invokes and returns the context too (to read Set-Cookie effects). */
export async function callWithContext(kernel: Kernel, name: string, input?: unknown, bearer?: string) {
  const ctx = testContext(kernel, { headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });
  const result = (await kernel.invoke(name, ctx, input)) as Record<string, unknown>;
  return { result, ctx };
}

export interface Auth {
  access_token: string;
  id_token: string;
  refresh_token?: string;
  expires_in: number;
  message: string;
  user: { id: string; email?: string; roles: string[]; phone_number?: string };
}

export const PASSWORD = 'Secret-123';

export function signup(kernel: Kernel, email: string, extra: Record<string, unknown> = {}): Promise<Auth> {
  return call<Auth>(kernel, 'signup', { email, password: PASSWORD, confirm_password: PASSWORD, ...extra });
}
