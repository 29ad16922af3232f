import t from 'tap';
import { Config } from '../../core/config.js';
import { definePlugin } from '../../core/plugin.js';
import { orderPlugins } from '../../core/registry.js';

const p = (name: string, dependsOn: string[] = [], enabled = true) =>
  definePlugin({ name, description: name, dependsOn, enabled: () => enabled });

t.test('orders plugins after their dependencies', async (t) => {
  const order = orderPlugins([p('c', ['b']), p('b', ['a']), p('a')], new Config()).map((x) => x.name);
  t.same(order, ['a', 'b', 'c']);
});

t.test('a missing dependency names both plugins', async (t) => {
  t.throws(
    () => orderPlugins([p('oauth', ['accounts'])], new Config()),
    /plugin "oauth" depends on "accounts", which is not in the build/,
  );
});

t.test('a disabled dependency names both plugins', async (t) => {
  t.throws(
    () => orderPlugins([p('oauth', ['accounts']), p('accounts', [], false)], new Config()),
    /"oauth" depends on "accounts", which is disabled/,
  );
});

t.test('a cycle is refused with its path', async (t) => {
  t.throws(() => orderPlugins([p('a', ['b']), p('b', ['c']), p('c', ['a'])], new Config()), /cycle: a -> b -> c -> a/);
});

t.test('a plugin listed twice is refused', async (t) => {
  t.throws(() => orderPlugins([p('a'), p('a')], new Config()), /listed twice/);
});

t.test('flag names must be kebab-case', async (t) => {
  t.throws(
    () =>
      definePlugin({ name: 'x', description: 'x', flags: [{ name: 'database_url', type: 'string', description: '' }] }),
    /kebab-case/,
  );
});
