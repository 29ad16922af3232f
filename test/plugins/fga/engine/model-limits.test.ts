/**
 * Models built to be expensive or odd are answered quickly and with a clear invalid_argument:
 * the entry-point rule is a fixed point (not a search per relation along every path), nesting
 * is bounded, and keywords are not names.
 */
import t from 'tap';
import { ModelError } from '../../../../plugins/fga/engine/dsl-error.js';
import { MAX_NESTING } from '../../../../plugins/fga/engine/dsl-parser.js';
import { compileModel } from '../../../../plugins/fga/engine/model-validator.js';

const header = 'model\n  schema 1.1\ntype user\ntype doc\n  relations\n';
const timed = (dsl: string): { ms: number; error?: unknown } => {
  const start = performance.now();
  try {
    compileModel(dsl);
    return { ms: performance.now() - start };
  } catch (error) {
    return { ms: performance.now() - start, error };
  }
};

t.test('shared intersections 40 levels deep are validated in milliseconds', async (t) => {
  const lines = ['    define a0: [user]', '    define b0: [user]'];
  for (let i = 1; i <= 40; i++)
    lines.push(`    define a${i}: a${i - 1} and b${i - 1}`, `    define b${i}: a${i - 1} and b${i - 1}`);
  const { ms, error } = timed(header + lines.join('\n') + '\n');
  t.equal(error, undefined);
  // The old search per relation doubled with each level: 16 levels took 1.4 s, 40 would take days.
  t.ok(ms < 500, `took ${ms.toFixed(1)} ms`);
});

t.test('a chain of 5000 computed relations, defined last to first, is validated without a deep stack', async (t) => {
  const lines: string[] = [];
  for (let i = 5000; i >= 1; i--) lines.push(`    define r${i}: r${i - 1}`);
  lines.push('    define r0: [user]');
  const { ms, error } = timed(header + lines.join('\n') + '\n');
  t.equal(error, undefined);
  t.ok(ms < 2000, `took ${ms.toFixed(1)} ms`);
});

t.test('a loop with no way in is still refused, naming its first relation', async (t) => {
  const { error } = timed(header + '    define a: [user]\n    define b: c and a\n    define c: b\n');
  t.type(error, ModelError);
  t.match((error as ModelError).message, /`b` is an impossible relation for `doc`/);
  t.equal((error as ModelError).line, 7);
});

t.test('parentheses nested past the bound are a model error, not a stack overflow', async (t) => {
  const deep = (n: number) => `${header}    define a: [user]\n    define b: ${'('.repeat(n)}a${')'.repeat(n)}\n`;
  t.equal(timed(deep(MAX_NESTING)).error, undefined);
  const { error } = timed(deep(20_000));
  t.type(error, ModelError);
  t.match((error as ModelError).message, /nested more than 64 levels/);
  t.equal((error as ModelError).line, 7);
});

t.test('a type restriction inside a group after an operator is refused', async (t) => {
  const { error } = timed(`${header}    define a: [user]\n    define b: a or ([user] or a)\n`);
  t.type(error, ModelError);
  t.match((error as ModelError).message, /must come first/);
  t.equal(timed(`${header}    define a: [user]\n    define b: ([user] or a) and a\n`).error, undefined);
});

t.test('keywords of the language cannot name a type or a relation', async (t) => {
  for (const name of ['or', 'and', 'from', 'with']) {
    const { error } = timed(`${header}    define ${name}: [user]\n`);
    t.type(error, ModelError, `relation ${name}`);
  }
  const { error } = timed('model\n  schema 1.1\ntype user\ntype or\n');
  t.match((error as ModelError).message, /keyword/);
});
