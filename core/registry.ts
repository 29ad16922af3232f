/**
 * Orders plugins by their declared dependencies. Missing or disabled dependencies
 * and cycles are boot errors whose message names the plugins involved.
 */
import type { Config } from './config.js';
import type { AnyPlugin } from './plugin.js';

export class PluginOrderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PluginOrderError';
  }
}

export function orderPlugins(plugins: readonly AnyPlugin[], config: Config): AnyPlugin[] {
  const byName = new Map<string, AnyPlugin>();
  for (const p of plugins) {
    if (byName.has(p.name)) throw new PluginOrderError(`plugin "${p.name}" is listed twice`);
    byName.set(p.name, p);
  }
  const enabled = plugins.filter((p) => p.enabled?.(config) ?? true);
  const enabledNames = new Set(enabled.map((p) => p.name));
  for (const p of enabled) {
    for (const dep of p.dependsOn ?? []) {
      if (!byName.has(dep))
        throw new PluginOrderError(`plugin "${p.name}" depends on "${dep}", which is not in the build`);
      if (!enabledNames.has(dep)) {
        throw new PluginOrderError(`plugin "${p.name}" depends on "${dep}", which is disabled by the configuration`);
      }
    }
  }
  const ordered: AnyPlugin[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (p: AnyPlugin, path: string[]): void => {
    const s = state.get(p.name);
    if (s === 'done') return;
    if (s === 'visiting') {
      const cycle = [...path.slice(path.indexOf(p.name)), p.name];
      throw new PluginOrderError(`plugin dependency cycle: ${cycle.join(' -> ')}`);
    }
    state.set(p.name, 'visiting');
    for (const dep of p.dependsOn ?? []) visit(byName.get(dep)!, [...path, p.name]);
    state.set(p.name, 'done');
    ordered.push(p);
  };
  for (const p of enabled) visit(p, []);
  return ordered;
}
