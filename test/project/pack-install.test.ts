/**
 * The package as a user gets it: `npm pack`, then the tarball installed into an empty folder with
 * plain npm. There, plain Node imports 'latchkey', `latchkey --help` runs the compiled binary,
 * and a strict TypeScript file type-checks against the shipped declarations. The build (dist/) is
 * brought up to date first when a source file is newer than it.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
  version: string;
  devDependencies: Record<string, string>;
};

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, timeout = 170_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, timeout, maxBuffer: 16 << 20 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const npm = (args: string[], cwd: string) => run('npm', args, cwd);

/** Newest modification time of the TypeScript sources that the build compiles. */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (/\.(ts|proto|graphql|json)$/.test(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

const CONSUMER = `import Fastify from 'fastify';
import { defaultPlugins, defineOperation, definePlugin, latchkey, InputObject, OutputObject, Str, Type } from 'latchkey';
import type { AnyPlugin, Config } from 'latchkey';

const greet = defineOperation({
  name: 'greet',
  kind: 'query',
  access: 'public',
  description: 'Greets someone.',
  input: InputObject('GreetRequest', { name: Str({ max: 64, min: 1 }) }),
  output: OutputObject('GreetResponse', { message: Type.String() }),
  handler: async (_ctx, input) => {
    const name: string = input.name;
    // @ts-expect-error the input schema makes name a string
    const wrong: number = input.name;
    void wrong;
    return { message: 'hello, ' + name };
  },
});

export const greeting = definePlugin({ name: 'greeting', description: 'Says hello.', operations: [greet] });
// @ts-expect-error a plugin needs a description
definePlugin({ name: 'nameless' });

export const build: readonly AnyPlugin[] = [...defaultPlugins, greeting];

export async function host(config: Config): Promise<void> {
  const app = Fastify();
  await app.register(latchkey, { prefix: '/auth', plugins: build, config });
}
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    // The shipped declarations are checked too: one that names a module the install lacks fails.
    skipLibCheck: false,
    types: ['node'],
  },
  files: ['consumer.ts'],
};

t.test('the packed tarball installs and works from an empty folder', async (t) => {
  // A build, an install of every dependency from the npm cache and a strict type check.
  t.setTimeout(400_000);
  const built = join(root, 'dist', '.tsbuildinfo');
  const sources = Math.max(
    ...['index.ts', 'core', 'plugins', 'providers', 'storage', 'transports', 'bin'].map((p) => {
      const path = join(root, p);
      if (!existsSync(path)) return 0;
      return statSync(path).isDirectory() ? newestSource(path) : statSync(path).mtimeMs;
    }),
  );
  if (!existsSync(built) || statSync(built).mtimeMs < sources) {
    const build = await run(process.execPath, [join(root, 'bin', 'build.js')], root);
    t.equal(build.code, 0, `npm run build: ${build.stdout}${build.stderr}`);
  }

  const dir = await mkdtemp(join(tmpdir(), 'latchkey-pack-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));

  // --ignore-scripts: the build above already ran; pack must not rebuild through `prepare`.
  const pack = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], root);
  t.equal(pack.code, 0, `npm pack: ${pack.stderr}`);
  const [packed] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
  const shipped = packed.files.map((f) => f.path);
  const stray = shipped.filter((p) => !/^(dist\/|README\.md$|LICENSE$|package\.json$)/.test(p));
  t.same(stray, [], 'only dist/, README, LICENSE and package.json are shipped');
  t.notOk(
    shipped.some((p) => /(^|\/)(test|bench|\.ci)\//.test(p) || p.endsWith('.tsbuildinfo')),
    'no test, bench or CI file',
  );
  t.ok(shipped.includes('dist/index.d.ts') && shipped.includes('dist/bin/latchkey.js'), 'JavaScript and .d.ts');

  const app = join(dir, 'app');
  await mkdir(app);
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  const install = await npm(
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      join(dir, packed.filename),
      `typescript@${pkg.devDependencies.typescript}`,
      `@types/node@${pkg.devDependencies['@types/node']}`,
    ],
    app,
  );
  t.equal(install.code, 0, `npm install: ${install.stderr}`);

  await writeFile(join(app, 'consumer.ts'), CONSUMER);
  await writeFile(join(app, 'tsconfig.json'), JSON.stringify(TSCONFIG));
  // The three checks are independent: run them side by side.
  const importScript =
    "const m = await import('latchkey'); console.log(JSON.stringify(['definePlugin', 'defineOperation', 'latchkey', 'defaultPlugins', 'createServer'].map((k) => typeof m[k])), m.defaultPlugins.length > 0)";
  const [imported, help, check] = await Promise.all([
    run(process.execPath, ['--input-type=module', '-e', importScript], app),
    // The bin link npm made for the package (what `npx latchkey` runs, without starting npm again).
    run(join(app, 'node_modules', '.bin', 'latchkey'), ['--help'], app),
    run(process.execPath, [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], app),
  ]);
  t.equal(imported.code, 0, `import('latchkey') in plain node: ${imported.stderr}`);
  t.equal(imported.stdout.trim(), '["function","function","function","object","function"] true');
  t.equal(help.code, 0, `latchkey --help: ${help.stderr}`);
  t.match(help.stdout, /^Usage: latchkey \[flags\]/);
  t.equal(check.code, 0, 'tsc exit code');
  t.equal(`${check.stdout}${check.stderr}`.trim(), '', 'no diagnostics under strict');
});
