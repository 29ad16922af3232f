/** Entry point of the `latchkey` binary: serves the default distribution. */
import { defaultPlugins } from '../../plugins/default.js';
import { runCli } from './run.js';

const result = await runCli(process.argv.slice(2), defaultPlugins);
if (typeof result === 'number') {
  process.exitCode = result;
} else {
  const server = result;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.kernel.logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
