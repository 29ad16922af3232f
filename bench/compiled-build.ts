/**
 * Preloaded into every bench child after tsx (`--import`, see child.ts): Latchkey's own modules
 * (index.ts and everything under core/, plugins/, providers/, storage/ and transports/) load from
 * the compiled build in dist/, as `node dist/bin/latchkey.js` and an app that installs the
 * package run them; only the bench's harness (bench/, test/helpers/) still goes through tsx. An
 * import that resolves to a source file is answered with its compiled twin, and dist/'s
 * JavaScript is handed to Node as it is, without tsx's transform. Uses Node's documented
 * synchronous module hooks (`module.registerHooks`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url).href;
const dist = new URL('../dist/', import.meta.url).href;
const SOURCE = /^(?:index|(?:core|plugins|providers|storage|transports)\/.+)\.ts$/;

registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    const rel = resolved.url.startsWith(root) ? resolved.url.slice(root.length) : '';
    if (!SOURCE.test(rel)) return resolved;
    const url = `${dist}${rel.slice(0, -'.ts'.length)}.js`;
    if (!existsSync(fileURLToPath(url))) throw new Error(`${url} is missing: run npm run build`);
    return { url, format: 'module', shortCircuit: true };
  },
  load(url, context, nextLoad) {
    if (!url.startsWith(dist) || !url.endsWith('.js')) return nextLoad(url, context);
    return { format: 'module', source: readFileSync(fileURLToPath(url), 'utf8'), shortCircuit: true };
  },
});

// tsx turns source maps on for the whole process; the compiled build runs without them, as it
// does under plain node (they make every Error's stack trace cost more).
process.setSourceMapsEnabled(false);
