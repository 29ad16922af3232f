/** A started server wired to a local SMTP sink, and small REST and GraphQL call helpers. */
import type { FlagValue } from '../../../core/config.js';
import { startTestServer, TEST_ADMIN_SECRET, type TestServer, type TestServerOptions } from '../../helpers/server.js';
import { startSmtpSink, type SmtpSink } from './smtp-sink.js';

export const PASSWORD = 'Mail-pass-1';

export interface MailServer {
  server: TestServer;
  sink: SmtpSink;
  close(): Promise<void>;
}

/** Mail flags for a server sending to `sink` (short retries: tests wait for them). */
export const mailFlags = (sink: { port: number }): Record<string, FlagValue> => ({
  'smtp-host': '127.0.0.1',
  'smtp-port': sink.port,
  'smtp-sender-email': 'auth@example.com',
  'email-retry-delay-ms': 50,
});

export async function startMailServer(
  flags: Record<string, FlagValue | undefined> = {},
  options: Omit<TestServerOptions, 'flags'> = {},
): Promise<MailServer> {
  const sink = await startSmtpSink();
  const server = await startTestServer({ ...options, flags: { ...mailFlags(sink), ...flags } });
  return {
    server,
    sink,
    async close() {
      await server.close();
      await sink.close();
    },
  };
}

export interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

/** POST /v1/<path> with a JSON body, as a browser of the service's own origin would. */
export async function rest<T = Record<string, unknown>>(
  server: { url: string },
  path: string,
  body: unknown = {},
  headers: Record<string, string> = {},
): Promise<Answer<T>> {
  const res = await fetch(`${server.url}/v1/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T, headers: res.headers };
}

export const admin = { 'x-service-admin-secret': TEST_ADMIN_SECRET };

export interface GqlAnswer<T = Record<string, unknown>> {
  data?: T;
  errors?: { message: string; extensions?: { code?: string } }[];
}

export async function gql<T = Record<string, unknown>>(
  server: { url: string },
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<GqlAnswer<T>> {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url, ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as GqlAnswer<T>;
}

/** GET a URL without following redirects. */
export async function open(
  url: string,
): Promise<{ status: number; location: string | null; body: string; headers: Headers }> {
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), body: await res.text(), headers: res.headers };
}

export function signupInput(email: string, extra: Record<string, unknown> = {}) {
  return { email, password: PASSWORD, confirm_password: PASSWORD, ...extra };
}
