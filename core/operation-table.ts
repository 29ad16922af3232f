/**
 * The operation table of a build, computed without booting anything: the generators of the
 * GraphQL SDL, .proto and OpenAPI documents use it, and the kernel registers the same list.
 */
import type { Config } from './config.js';
import { compileOperation, type AnyOperation, type CompiledOperation } from './operations.js';
import type { AnyPlugin } from './plugin.js';
import { orderPlugins } from './registry.js';

export function pluginOperations(plugin: AnyPlugin, config: Config, plugins: readonly AnyPlugin[]): AnyOperation[] {
  return typeof plugin.operations === 'function' ? plugin.operations({ config, plugins }) : (plugin.operations ?? []);
}

export function operationTable(plugins: readonly AnyPlugin[], config: Config): CompiledOperation[] {
  const ordered = orderPlugins(plugins, config);
  const seen = new Map<string, CompiledOperation>();
  for (const plugin of ordered) {
    for (const def of pluginOperations(plugin, config, ordered)) {
      const existing = seen.get(def.name);
      if (existing)
        throw new Error(`operation "${def.name}" is declared by both "${existing.plugin}" and "${plugin.name}"`);
      seen.set(def.name, compileOperation(def, plugin.name));
    }
  }
  return [...seen.values()];
}
