/** The onRequest steps run in order in one hook, and a step that answers ends the request there. */
import Fastify from 'fastify';
import t from 'tap';
import { addRequestSteps, type RequestStep } from '../../../transports/http/request-steps.js';

function appWith(steps: RequestStep[]) {
  const app = Fastify();
  addRequestSteps(app, steps);
  app.get('/', async () => ({ handled: true }));
  return app;
}

t.test('every step runs, in order, and then the route', async (t) => {
  const seen: string[] = [];
  const app = appWith([
    () => (seen.push('first'), true),
    (_request, reply) => (seen.push('second'), reply.header('x-step', 'second'), true),
  ]);
  const res = await app.inject({ method: 'GET', url: '/' });
  t.same(seen, ['first', 'second']);
  t.equal(res.headers['x-step'], 'second', 'a header a step set reaches the response');
  t.same(res.json(), { handled: true });
});

t.test('a step that answers ends the request: no later step, no handler', async (t) => {
  const seen: string[] = [];
  const app = appWith([
    (_request, reply) => (
      seen.push('refuse'),
      void reply.code(429).send({ code: 'resource_exhausted', message: 'too many requests' }),
      false
    ),
    () => (seen.push('after'), true),
  ]);
  const res = await app.inject({ method: 'GET', url: '/' });
  t.equal(res.statusCode, 429);
  t.same(res.json(), { code: 'resource_exhausted', message: 'too many requests' });
  t.same(seen, ['refuse'], 'the step after the refusal did not run');
});

t.test('no steps: the request goes straight on', async (t) => {
  const res = await appWith([]).inject({ method: 'GET', url: '/' });
  t.same(res.json(), { handled: true });
});
