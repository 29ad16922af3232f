/**
 * Placeholders: flags SPEC.md defines for capabilities whose plugins are not built yet. Each group
 * is a plugin named `planned-<capability>` so that `--help` says so; the flags are accepted (a
 * deployment's command line keeps working) and have no effect until the real plugin replaces the
 * group. When you build one of these plugins, move its flags into it and delete the group here.
 */
import type { FlagDeclaration } from '../../core/config.js';
import { definePlugin, type AnyPlugin } from '../../core/plugin.js';

const bool = (name: string, description: string, def = false): FlagDeclaration => ({
  name,
  type: 'boolean',
  description,
  default: def,
});

const groups: Record<string, FlagDeclaration[]> = {
  'phone-verification': [bool('enable-phone-verification', 'Require phone verification.')],
};

export function placeholderPlugins(skip: readonly string[] = []): AnyPlugin[] {
  return Object.entries(groups)
    .filter(([name]) => !skip.includes(name))
    .map(([name, flags]) =>
      definePlugin({
        name: `planned-${name}`,
        description: `Placeholder: the ${name} plugin is not built yet; its flags are accepted and have no effect.`,
        flags,
      }),
    );
}
