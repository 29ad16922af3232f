/** Kernel bench child: the base plugins as `latchkey` serves them (SQLite), rate limit off. */
import { basePlugins } from '../../../plugins/default.js';
import { startTestServer } from '../../../test/helpers/server.js';
import { serveUntilStdinCloses } from '../../child.js';

const server = await startTestServer({ plugins: basePlugins, flags: { 'rate-limit-per-minute': 0 } });
const base = server.url.replace('localhost', '127.0.0.1');
const meta = (await (await fetch(`${base}/v1/meta`)).json()) as Record<string, unknown>;
serveUntilStdinCloses({ base, origin: server.url, grpc: server.grpcAddress, meta }, () => server.close());
