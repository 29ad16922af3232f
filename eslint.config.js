// ESLint flat config. typescript-eslint's recommended rules without type information (so a run over
// the tree stays fast), no stylistic rules (Prettier formats; `npm run lint` runs both), and one
// project rule: plugin boundaries.
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';

const root = dirname(fileURLToPath(import.meta.url));

/** The plugin folder a repository path lies in (`plugins/<name>/...`), or undefined. */
function pluginOf(path) {
  const parts = relative(root, path).split(sep);
  return parts[0] === 'plugins' && parts.length > 2 ? parts[1] : undefined;
}

function isPluginIndex(path) {
  const parts = relative(root, path).split(sep);
  return parts.length === 3 && /^index\.(js|ts)$/.test(parts[2]);
}

/**
 * A plugin reaches another plugin only through what the other exports from its index.ts (its
 * service type, schemas and constants), never through the other's internal files; providers/ may
 * import plugin index files only. Relative imports, type-only imports and re-exports all count.
 */
const pluginBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: "forbid importing another plugin's internal files" },
    messages: {
      internal: "'{{source}}' is an internal file of plugin '{{target}}': import plugins/{{target}}/index.js instead.",
    },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const from = relative(root, file).split(sep);
    const ownPlugin = pluginOf(file);
    const isProvider = from[0] === 'providers';
    if (!ownPlugin && !isProvider) return {};
    const check = (node) => {
      const source = node.source;
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return;
      if (!source.value.startsWith('.')) return;
      const target = resolve(dirname(file), source.value);
      const targetPlugin = pluginOf(target);
      if (!targetPlugin || targetPlugin === ownPlugin || isPluginIndex(target)) return;
      context.report({ node: source, messageId: 'internal', data: { source: source.value, target: targetPlugin } });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'data/**', '.tap/**', 'coverage/**'] },
  ...tseslint.configs.recommended,
  {
    plugins: { latchkey: { rules: { 'plugin-boundaries': pluginBoundaries } } },
    rules: {
      'latchkey/plugin-boundaries': 'error',
      // A leading underscore marks a parameter kept for its position (handler signatures).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
);
