/**
 * FGA bench child: the reference. A bare Fastify POST /v1/check_permissions that parses the same
 * JSON body and answers the same shape (`allowed: false` for every check) with no kernel, no
 * authentication and no evaluation: what the HTTP stack costs by itself for this call.
 */
import Fastify from 'fastify';
import { portOf, serveUntilStdinCloses } from '../../child.js';

interface Body {
  checks: { relation: string; object: string }[];
}
const app = Fastify({ logger: false });
app.post<{ Body: Body }>('/v1/check_permissions', async (req) => ({
  results: req.body.checks.map((c) => ({ relation: c.relation, object: c.object, allowed: false })),
}));
await app.listen({ host: '127.0.0.1', port: 0 });
serveUntilStdinCloses({ base: `http://127.0.0.1:${portOf(app.server)}` }, () => app.close());
