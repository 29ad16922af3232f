/**
 * FGA bench child: Latchkey with its default plugins on the bench's database (argv[2]: the
 * target's flags as JSON), so `fga` loads the data set already stored there. Rate limit off.
 */
import { startTestServer } from '../../../test/helpers/server.js';
import { serveUntilStdinCloses } from '../../child.js';

const flags = JSON.parse(process.argv[2] ?? '{}') as Record<string, string>;
const server = await startTestServer({ flags: { ...flags, 'rate-limit-per-minute': 0 } });
const base = server.url.replace('localhost', '127.0.0.1');
serveUntilStdinCloses({ base, origin: server.url, heapMb: Math.round(process.memoryUsage().heapUsed / 1e6) }, () =>
  server.close(),
);
