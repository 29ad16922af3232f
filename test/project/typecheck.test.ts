/**
 * The whole project type-checks under tsconfig.json's strict settings. Tests and the binary run
 * TypeScript through tsx, which strips types without checking them, so without this a type error
 * would pass every other test.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

t.test('tsc --noEmit reports no errors', async (t) => {
  const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      process.execPath,
      [tsc, '--noEmit', '-p', join(root, 'tsconfig.json')],
      { cwd: root, timeout: 170_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
  t.equal(code, 0, 'tsc exit code');
  t.equal(output.trim(), '', 'no diagnostics');
});
