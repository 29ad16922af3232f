/**
 * The CLI: argv -> config -> checks -> server. `run` returns an exit code instead of exiting so
 * tests and other entry points can call it.
 */
import { withDefaults } from '../../core/config.js';
import { Kernel } from '../../core/kernel.js';
import type { AnyPlugin } from '../../core/plugin.js';
import { orderPlugins } from '../../core/registry.js';
import { createServer, type LatchkeyServer } from '../http/server.js';
import { helpText } from './help.js';
import { CliError, parseArgs } from './parse-args.js';

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

const stdio: CliIo = {
  out: (t) => process.stdout.write(`${t}\n`),
  err: (t) => process.stderr.write(`${t}\n`),
};

/** Parses and checks; returns the started server, or an exit code when it should not start. */
export async function runCli(
  argv: readonly string[],
  plugins: readonly AnyPlugin[],
  io: CliIo = stdio,
): Promise<LatchkeyServer | number> {
  let parsed;
  try {
    parsed = parseArgs(argv, Kernel.flagsOf(plugins));
  } catch (err) {
    if (err instanceof CliError) {
      io.err(err.message);
      return 2;
    }
    throw err;
  }
  if (parsed.help) {
    io.out(helpText(plugins));
    return 0;
  }
  const config = withDefaults(Kernel.flagsOf(plugins), parsed.values);
  // Every plugin's rules, in plugin order; each problem on its own line.
  let problems: string[];
  try {
    problems = Kernel.configProblems(orderPlugins(plugins, config), config);
  } catch (err) {
    io.err((err as Error).message);
    return 1;
  }
  if (problems.length > 0) {
    for (const p of problems) io.err(p);
    return 1;
  }
  let server: Awaited<ReturnType<typeof createServer>> | undefined;
  try {
    server = await createServer({ plugins, config });
    const where = await server.listen();
    server.kernel.logger.info(
      { http: where.httpAddress, grpcPort: where.grpcPort, metricsPort: where.metricsPort, url: config.string('url') },
      'latchkey is listening',
    );
    return server;
  } catch (err) {
    io.err(`latchkey could not start: ${(err as Error).message}`);
    // A listener that failed after HTTP was bound (gRPC, metrics) must not leave the process
    // serving half the transports and reporting ready.
    await server?.close().catch(() => undefined);
    return 1;
  }
}
