import type { EventSchemas } from '../events/event-catalogue.ts';
import type { EventSubscriber } from '../events/event-log.ts';
import type { App } from '../http/fastify-types.ts';
import type { JobDefinition } from '../jobs/job-types.ts';
import type { RecurringJob } from '../jobs/recurring.ts';
import type {
  ModuleContext,
  ModuleDefinition,
  ModuleParts,
  ModuleServices,
  Platform,
  SandboxCleanup,
} from './module.ts';
import { keepTestSeams, type TestSeams } from './test-seams.ts';

/** The modules of one process, set up in order: their services, routes, jobs and clean-ups together. */
export interface AssembledModules {
  readonly names: readonly string[];
  use<K extends keyof ModuleServices>(name: K): ModuleServices[K];
  /** Registers every module's `/api/v1` routes on `api` (already prefixed by the caller). */
  registerRoutes(api: App): Promise<void>;
  registerRootRoutes(app: App): Promise<void>;
  readonly jobs: readonly JobDefinition[];
  readonly recurring: readonly RecurringJob[];
  readonly sandboxCleanups: readonly SandboxCleanup[];
  readonly eventSubscribers: readonly EventSubscriber[];
  /** Every module's event data schemas, by event name. */
  readonly eventSchemas: EventSchemas;
  close(): Promise<void>;
}

/**
 * Sets up each module in list order. A module sees the services of those before it, so the list
 * order is the dependency order; asking for a later or unknown service fails at start, naming both.
 */
export async function assembleModules(
  platform: Platform,
  definitions: readonly ModuleDefinition[],
): Promise<AssembledModules> {
  const services: Partial<ModuleServices> = {};
  const testSeams: Partial<TestSeams> = {};
  const eventSchemas: Record<string, unknown> = {};
  const parts: { name: string; parts: ModuleParts }[] = [];
  const seen = new Set<string>();
  let cleanups: SandboxCleanup[] = [];
  const capabilities = (): Record<string, unknown> =>
    Object.assign({}, ...parts.map((p) => p.parts.capabilities?.() ?? {})) as Record<string, unknown>;

  const use = <K extends keyof ModuleServices>(name: K, by: string): ModuleServices[K] => {
    const service = services[name];
    if (service === undefined)
      throw new Error(`module "${by}" uses "${String(name)}", which no module listed before it provides`);
    return service as ModuleServices[K];
  };

  for (const definition of definitions) {
    if (seen.has(definition.name)) throw new Error(`module "${definition.name}" is listed twice`);
    seen.add(definition.name);
    const context: ModuleContext = {
      ...platform,
      use: (name) => use(name, definition.name),
      sandboxCleanups: () => cleanups,
      capabilities: () => capabilities(),
    };
    const made = await definition.setup(context);
    for (const [name, service] of Object.entries(made.provides ?? {})) {
      if (name in services)
        throw new Error(`module "${definition.name}" provides "${name}", already provided by another module`);
      (services as Record<string, unknown>)[name] = service;
    }
    for (const [name, schema] of Object.entries(made.eventSchemas ?? {})) {
      if (name in eventSchemas)
        throw new Error(`module "${definition.name}" declares event "${name}", already declared by another module`);
      eventSchemas[name] = schema;
    }
    for (const [name, seam] of Object.entries(made.testSeams ?? {})) {
      if (name in testSeams)
        throw new Error(`module "${definition.name}" hands "${name}" to tests, already handed by another module`);
      (testSeams as Record<string, unknown>)[name] = seam;
    }
    parts.push({ name: definition.name, parts: made });
  }
  // Dependents are listed after what they use, so their data goes first (foreign keys point down the list).
  cleanups = parts.flatMap((p) => (p.parts.sandboxCleanup ? [p.parts.sandboxCleanup] : [])).reverse();

  const assembled: AssembledModules = {
    names: parts.map((p) => p.name),
    use: (name) => use(name, 'composition root'),
    async registerRoutes(api) {
      for (const { parts: p } of parts) await p.routes?.(api);
    },
    async registerRootRoutes(app) {
      for (const { parts: p } of parts) await p.rootRoutes?.(app);
    },
    jobs: parts.flatMap((p) => p.parts.jobs ?? []),
    recurring: parts.flatMap((p) => p.parts.recurring ?? []),
    sandboxCleanups: cleanups,
    eventSubscribers: parts.flatMap((p) => (p.parts.onEvent ? [p.parts.onEvent] : [])),
    eventSchemas: eventSchemas as EventSchemas,
    async close() {
      for (const { parts: p } of [...parts].reverse()) await p.close?.();
    },
  };
  keepTestSeams(assembled, testSeams);
  return assembled;
}
