/**
 * A declared flag's choices hold for a Config built in code (embedding, the test helper) as for
 * the CLI: a SameSite of `Strict` passed that way went out as `SameSite=undefined`.
 */
import t from 'tap';
import { Config } from '../../core/config.js';
import { Kernel } from '../../core/kernel.js';
import { defaultPlugins } from '../../plugins/default.js';
import { startTestServer } from '../helpers/server.js';

const problems = (flags: Record<string, string | number>) =>
  Kernel.configProblems(defaultPlugins, new Config({ url: 'https://auth.example.com', ...flags }));

t.test("a value outside a flag's choices is a configuration problem, in the CLI's words", async (t) => {
  for (const value of ['Strict', 'LAX', ' lax', 'always']) {
    t.ok(
      problems({ 'app-cookie-same-site': value }).includes(
        `--app-cookie-same-site must be one of none, lax, strict; got "${value}"`,
      ),
      value,
    );
  }
  t.ok(
    problems({ 'app-cookie-same-site': 1 }).some((p) => p.startsWith('--app-cookie-same-site must be one of')),
    'a number is not a choice',
  );
  for (const value of ['lax', 'strict', 'none', ''])
    t.same(
      problems({ 'app-cookie-same-site': value }).filter((p) => p.includes('same-site')),
      [],
      JSON.stringify(value),
    );
});

t.test('boot refuses such a config before anything starts', async (t) => {
  await t.rejects(
    startTestServer({ flags: { 'app-cookie-same-site': 'Strict' } }),
    /--app-cookie-same-site must be one of none, lax, strict; got "Strict"/,
  );
});
