/**
 * A custom build: only the base plugins plus one plugin of your own, served by createServer.
 * Run: npx tsx examples/custom-build.ts --database-type sqlite --database-url ./data/custom.db \
 *        --url http://localhost:8080 --admin-secret s --client-id c --client-secret cs \
 *        --jwt-type HS256 --jwt-secret change-me
 */
import { pathToFileURL } from 'node:url';
import { defineOperation } from '../core/operations.js';
import { definePlugin, type AnyPlugin } from '../core/plugin.js';
import { InputObject, OutputObject, Str, Type } from '../core/schema.js';
import { basePlugins } from '../plugins/default.js';
import { runCli } from '../transports/cli/run.js';

/** A plugin of the build's own: one public operation, on REST, GraphQL and gRPC at once. */
export const greetingPlugin = definePlugin({
  name: 'greeting',
  description: 'Says hello (example of a custom plugin).',
  flags: [{ name: 'greeting-word', type: 'string', default: 'hello', description: 'The word to greet with.' }],
  operations: [
    defineOperation({
      name: 'greet',
      kind: 'query',
      access: 'public',
      description: 'Greets someone.',
      input: InputObject('GreetRequest', { name: Str({ max: 64, min: 1 }) }),
      output: OutputObject('GreetResponse', { message: Type.String() }),
      handler: async (ctx, input) => ({
        message: `${ctx.kernel.config.string('greeting-word', 'hello')}, ${input.name}`,
      }),
    }),
  ],
});

export const customBuild: AnyPlugin[] = [...basePlugins, greetingPlugin];

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await runCli(process.argv.slice(2), customBuild);
  if (typeof result === 'number') process.exitCode = result;
}
