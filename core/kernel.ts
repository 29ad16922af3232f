/**
 * The kernel: boots an ordered list of plugins against one configuration, one storage and one
 * memory store, and owns the operation table every transport projects.
 * It holds no module-level state, so two kernels can live in one process (embedding).
 */
import { Registry } from 'prom-client';
import { auditRecordOf, noteAuditedOperation, type AuditRecord } from './audit.js';
import type { Config, FlagDeclaration } from './config.js';
import type { Principal, RequestContext } from './context.js';
import { ServiceError, toServiceError } from './errors.js';
import { EventBus } from './events.js';
import { HookBus } from './hooks.js';
import { silentLogger, type Logger } from './logger.js';
import type { MemoryStore } from './memory-store.js';
import { compileOperation, validateInput, type Access, type CompiledOperation } from './operations.js';
import type { AnyPlugin, Authenticator, PluginSetupContext, RawRoute } from './plugin.js';
import { orderPlugins } from './registry.js';
import { pluginOperations } from './operation-table.js';
import type { Services } from './services.js';
import type { EntityDefinition, MemoryStoreOpener, Storage, StorageOpener } from './storage.js';

export interface KernelOptions {
  plugins: readonly AnyPlugin[];
  config: Config;
  openStorage: StorageOpener;
  openMemoryStore: MemoryStoreOpener;
  logger?: Logger;
}

export interface KernelRoute extends RawRoute {
  plugin: string;
}

export class Kernel {
  readonly config: Config;
  readonly logger: Logger;
  readonly events: EventBus;
  readonly hooks = new HookBus();
  /** Plugin metrics (prom-client), rendered by the metrics listener; one registry per kernel. */
  readonly metrics = new Registry();
  readonly plugins: readonly AnyPlugin[];
  readonly operations = new Map<string, CompiledOperation>();
  readonly routes: KernelRoute[] = [];
  private storageRef: Storage | undefined;
  private memoryRef: MemoryStore | undefined;
  private readonly services = new Map<string, unknown>();
  private readonly authenticators: Record<'session' | 'admin' | 'org-admin', Authenticator[]> = {
    session: [],
    admin: [],
    'org-admin': [],
  };
  private readonly closers: (() => Promise<void> | void)[] = [];
  private closed = false;
  private metaCache: Readonly<Record<string, boolean | string>> | undefined;

  private constructor(plugins: readonly AnyPlugin[], config: Config, logger: Logger) {
    this.plugins = plugins;
    this.config = config;
    this.logger = logger;
    this.events = new EventBus((err, event) => logger.error({ err, event: event.name }, 'event handler failed'));
  }

  /** Every flag declared by the given plugins, each once (the CLI parses against these). */
  static flagsOf(plugins: readonly AnyPlugin[]): FlagDeclaration[] {
    const seen = new Map<string, FlagDeclaration>();
    for (const p of plugins) for (const f of p.flags ?? []) if (!seen.has(f.name)) seen.set(f.name, f);
    return [...seen.values()];
  }

  /** Every plugin configuration rule the config breaks, in plugin order (empty when none). */
  static configProblems(plugins: readonly AnyPlugin[], config: Config): string[] {
    // A declared flag's choices hold for a Config built in code (embedding, tests) as they do
    // for the CLI (transports/cli/parse-args.ts, same wording): `--app-cookie-same-site Strict`
    // given that way would otherwise go out as `SameSite=undefined`, which browsers read as Lax.
    const choices = Kernel.flagsOf(plugins).flatMap((f) => {
      const value = config.raw(f.name);
      if (!f.choices || value === undefined || value === '' || (typeof value === 'string' && f.choices.includes(value)))
        return [];
      return [`--${f.name} must be one of ${f.choices.join(', ')}; got "${String(value)}"`];
    });
    return [
      ...choices,
      ...plugins.flatMap((p) => {
        const problem = p.validateConfig?.(config);
        return problem ? [problem] : [];
      }),
    ];
  }

  static async boot(options: KernelOptions): Promise<Kernel> {
    const ordered = orderPlugins(options.plugins, options.config);
    const problems = Kernel.configProblems(ordered, options.config);
    if (problems.length > 0) throw new Error(problems.join('\n'));
    const kernel = new Kernel(ordered, options.config, options.logger ?? silentLogger);
    try {
      await kernel.start(options);
    } catch (err) {
      await kernel.close().catch(() => {});
      throw err;
    }
    return kernel;
  }

  get storage(): Storage {
    if (!this.storageRef) throw new Error('storage is not open');
    return this.storageRef;
  }

  get memory(): MemoryStore {
    if (!this.memoryRef) throw new Error('memory store is not open');
    return this.memoryRef;
  }

  private async start(options: KernelOptions): Promise<void> {
    const entities: EntityDefinition[] = this.plugins.flatMap((p) => p.entities ?? []);
    this.storageRef = await options.openStorage(this.config, entities);
    this.memoryRef = await options.openMemoryStore(this.config, this.storageRef);
    const names = this.plugins.map((p) => p.name);
    for (const plugin of this.plugins) {
      if (plugin.setup) {
        const service = await plugin.setup(this.setupContext(plugin, names));
        if (service !== undefined) this.services.set(plugin.name, service);
      }
      this.register(plugin);
    }
    await this.hooks.run('kernel.ready', { plugins: names });
  }

  private setupContext(plugin: AnyPlugin, names: string[]): PluginSetupContext {
    const deps = new Set(plugin.dependsOn ?? []);
    return {
      config: this.config,
      storage: this.storage,
      memory: this.memory,
      events: this.events,
      hooks: this.hooks,
      logger: this.logger,
      plugins: names,
      definitions: this.plugins,
      service: <K extends keyof Services>(name: K): Services[K] => {
        if (!deps.has(name as string)) {
          throw new Error(`plugin "${plugin.name}" uses service "${String(name)}" without declaring it in dependsOn`);
        }
        return this.service(name);
      },
      optionalService: <K extends keyof Services>(name: K) =>
        this.services.get(name as string) as Services[K] | undefined,
      authenticate: (access, fn) => {
        this.authenticators[access].push(fn);
        this.chains = new Map();
        this.listChains = new WeakMap();
      },
      onClose: (fn) => this.closers.push(fn),
      metrics: this.metrics,
    };
  }

  private register(plugin: AnyPlugin): void {
    for (const def of pluginOperations(plugin, this.config, this.plugins)) {
      const existing = this.operations.get(def.name);
      if (existing) {
        throw new Error(`operation "${def.name}" is declared by both "${existing.plugin}" and "${plugin.name}"`);
      }
      this.operations.set(def.name, compileOperation(def, plugin.name));
    }
    for (const r of plugin.routes ?? []) this.routes.push({ ...r, plugin: plugin.name });
  }

  /** A plugin's service (after boot; transports and tests use this). */
  service<K extends keyof Services>(name: K): Services[K] {
    const s = this.services.get(name as string);
    if (s === undefined) throw new Error(`service "${String(name)}" is not available in this build`);
    return s as Services[K];
  }

  hasService(name: string): boolean {
    return this.services.has(name);
  }

  /**
   * Meta values from every plugin (the `meta` operation's `is_*_enabled` fields; false for features
   * no plugin provides). They depend only on the configuration, which never changes after boot,
   * so they are computed once.
   */
  metaValues(): Readonly<Record<string, boolean | string>> {
    if (!this.metaCache) {
      const out: Record<string, boolean | string> = {};
      for (const p of this.plugins) Object.assign(out, p.meta?.(this.config) ?? {});
      this.metaCache = Object.freeze(out);
    }
    return this.metaCache;
  }

  /**
   * Runs the authenticators of an access level in order, or of several levels one after the
   * other (org-admin is the admin chain, then its own); the first principal wins. When every
   * authenticator that ran answered without a promise, so does this (await works on either).
   */
  authenticate(
    access: Access | readonly Access[],
    ctx: RequestContext,
    input: unknown,
  ): Promise<Principal | null> | Principal | null {
    return firstPrincipal(typeof access === 'string' ? this.chainOf(access) : this.chainOfList(access), 0, ctx, input);
  }

  /** Each level's chain, and each list's (kept per list object: callers pass module constants), made once. */
  private chains = new Map<Access, readonly Authenticator[]>();
  private listChains = new WeakMap<readonly Access[], readonly Authenticator[]>();

  private chainOf(level: Access): readonly Authenticator[] {
    let chain = this.chains.get(level);
    if (chain === undefined) {
      chain =
        level === 'public'
          ? []
          : level === 'org-admin'
            ? [...this.authenticators.admin, ...this.authenticators['org-admin']]
            : [...this.authenticators[level]];
      this.chains.set(level, chain);
    }
    return chain;
  }

  private chainOfList(levels: readonly Access[]): readonly Authenticator[] {
    let chain = this.listChains.get(levels);
    if (chain === undefined) this.listChains.set(levels, (chain = levels.flatMap((level) => this.chainOf(level))));
    return chain;
  }

  /**
   * The one pipeline behind every transport: validate, check access, run the handler.
   * Errors leave as ServiceError; anything else is logged and becomes `internal`.
   */
  async invoke(name: string, ctx: RequestContext, rawInput: unknown): Promise<unknown> {
    const op = this.operations.get(name);
    if (!op) throw new ServiceError('not_found', `unknown operation ${name}`);
    return this.invokeCompiled(op, ctx, rawInput);
  }

  invokeCompiled(op: CompiledOperation, ctx: RequestContext, rawInput: unknown): Promise<unknown> {
    // Written with explicit promises rather than as an async function: this runs once per call on
    // every transport, and a public operation then costs its handler's promise and nothing more.
    let run: Promise<unknown>;
    try {
      const input = validateInput(op, rawInput);
      // Before the handler: a shared step it calls (the sign-in service) sees the call records itself.
      if (op.def.audit !== undefined) noteAuditedOperation(ctx, op.def.audit.action);
      if (op.def.access === 'public') run = Promise.resolve(op.def.handler(ctx, input));
      else {
        const found = this.authenticate(op.def.access, ctx, input);
        run = isPromise(found)
          ? found.then((principal) => admit(op, ctx, input, principal))
          : Promise.resolve(admit(op, ctx, input, found));
      }
      if (op.def.audit !== undefined && this.hooks.has('audit.record')) run = this.audited(op, ctx, input, run);
    } catch (err) {
      run = Promise.reject(err);
    }
    return run.catch((err: unknown) => {
      if (!(err instanceof ServiceError)) this.logger.error({ err, operation: op.def.name }, 'operation failed');
      throw toServiceError(err);
    });
  }

  /**
   * A call of an operation that declares `audit`, recorded once it has finished (core/audit.ts).
   * Input validation has passed; a refused call is recorded only when the declaration asks for
   * failures and the caller got past the access check (a public operation, or a principal). A
   * record that cannot be written is logged with its content and does not change the answer: the
   * action itself has happened, and answering an error would invite a retry of it.
   */
  private audited(op: CompiledOperation, ctx: RequestContext, input: unknown, run: Promise<unknown>): Promise<unknown> {
    const declaration = op.def.audit!;
    const record = async (output: unknown, error: ServiceError | undefined): Promise<void> => {
      let entry: AuditRecord | undefined;
      try {
        const caller = ctx.principal ?? (op.def.access === 'public' ? await this.sessionCaller(ctx, input) : undefined);
        entry = auditRecordOf(op.def.name, declaration, { ctx, input, output, error, caller });
        if (entry) await this.hooks.run('audit.record', entry);
      } catch (err) {
        this.logger.error({ err, operation: op.def.name, audit: entry }, 'audit: the record could not be written');
      }
    };
    return run.then(
      async (output) => {
        await record(output, undefined);
        return output;
      },
      async (err: unknown) => {
        const admitted = op.def.access === 'public' || ctx.principal !== undefined;
        if (declaration.failures && admitted) await record(undefined, toServiceError(err));
        throw err;
      },
    );
  }

  /** The session a public operation's caller presented, for its audit record's actor; undefined if none. */
  private async sessionCaller(ctx: RequestContext, input: unknown): Promise<Principal | undefined> {
    try {
      return (await this.authenticate('session', ctx, input)) ?? undefined;
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.events.drain();
    for (const fn of this.closers.reverse()) {
      try {
        await fn();
      } catch (err) {
        this.logger.warn({ err }, 'close handler failed');
      }
    }
    await this.memoryRef?.close().catch(() => {});
    await this.storageRef?.close().catch(() => {});
  }
}

const isPromise = <T>(v: Promise<T> | T): v is Promise<T> => v instanceof Promise;

/** The chain from `from` on: the first principal, synchronously as long as no authenticator waited. */
function firstPrincipal(
  chain: readonly Authenticator[],
  from: number,
  ctx: RequestContext,
  input: unknown,
): Promise<Principal | null> | Principal | null {
  for (let i = from; i < chain.length; i++) {
    const found = chain[i](ctx, input);
    if (isPromise(found)) return found.then((principal) => principal ?? firstPrincipal(chain, i + 1, ctx, input));
    if (found) return found;
  }
  return null;
}

/** An operation's call once its caller is known: refused without a principal, else its handler. */
function admit(
  op: CompiledOperation,
  ctx: RequestContext,
  input: unknown,
  principal: Principal | null,
): Promise<unknown> {
  if (!principal) throw new ServiceError('unauthenticated', 'unauthorized');
  ctx.principal = principal;
  return op.def.handler(ctx, input as never);
}
