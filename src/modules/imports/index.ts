import { eventSubscriber } from '../../events/event-log.ts';
import { defineJob } from '../../jobs/job-types.ts';
import { defineModule } from '../../platform/module.ts';
import { outboundHttpFromConfig } from '../../providers/outbound/outbound-from-config.ts';
import { AGENT_RUN_JOB, AGENT_TASK_SOURCE, AgentRunner } from './agent-runner.ts';
import { AgentRunsRepository } from './agent-runs.repository.ts';
import { AgentScheduler } from './agent-scheduler.ts';
import { AgentsService } from './agents.service.ts';
import { CredentialBox } from './credential-box.ts';
import { DriveAccess } from './drive-access.ts';
import { FolderTree } from './folder-tree.ts';
import { IMPORT_JOBS } from './import-job-kinds.ts';
import { ImportLane } from './import-lane.ts';
import { importRoutes } from './imports.routes.ts';
import { ItemsRepository } from './items.repository.ts';
import { ProjectsRepository } from './projects.repository.ts';
import { ProjectsService } from './projects.service.ts';
import { Scanner } from './scanner.ts';

declare module '../../platform/module.ts' {
  interface ModuleServices {
    importProjects: ProjectsService;
  }
}

/** A long file (a 500 MB video) may take this long to stream from Drive into the store. */
const LANE_TIMEOUT_MS = 60 * 60_000;
const SCAN_TIMEOUT_MS = 6 * 60 * 60_000;
/** A completion agent reads every imported document. */
const AGENT_TIMEOUT_MS = 60 * 60_000;

/**
 * Import projects (docs/imports.md): Google Drive folders scanned with filters and imported as
 * documents (Google-native files exported), by durable jobs, with pause, resume, cancel and progress;
 * AI agents run on the imported documents once processed, their changes applied at once or on
 * approval of a task in the workflow task inbox.
 */
export const importsModule = defineModule({
  name: 'imports',
  setup({ config, database, clock, logger, jobs, use }) {
    const http = outboundHttpFromConfig(config, { connectionsPerOrigin: Math.max(8, 2 * config.imports.concurrency) });
    const projects = new ProjectsRepository();
    const items = new ItemsRepository();
    const box = new CredentialBox(database.db, () => clock.now());
    const drive = new DriveAccess({
      database,
      clock,
      box,
      projects,
      settings: { apiUrl: config.imports.driveApiUrl, tokenUrl: config.imports.oauthTokenUrl, http },
    });
    const scanner = new Scanner({ database, clock, logger, projects, items, drive });
    const runs = new AgentRunsRepository();
    const library = use('documentPipeline');
    const scheduler = new AgentScheduler({ database, clock, jobs, runs, items, projects, library });
    const tasks = use('humanTasks');
    const runner = new AgentRunner({
      database,
      clock,
      logger,
      runs,
      projects,
      ai: use('documentAi'),
      tenants: use('tenantDirectory'),
      library,
      documents: use('documents'),
      tasks,
      executions: use('workflowExecutions'),
    });
    tasks.registerSource(AGENT_TASK_SOURCE, runner);
    const service = new ProjectsService({
      database,
      clock,
      jobs,
      projects,
      items,
      box,
      folders: use('folders'),
      lanes: config.imports.concurrency,
      beforeDelete: (trx, tenantId, projectId) => runner.withdraw(trx, tenantId, projectId),
    });
    const agents = new AgentsService({ database, clock, projects, runs, workflows: use('workflows') });
    const lane = new ImportLane({
      database,
      clock,
      jobs,
      tenants: use('tenantDirectory'),
      projects,
      items,
      drive,
      folders: new FolderTree({ database, folders: use('folders'), items }),
      uploads: use('uploads'),
      retryDelaysMs: config.imports.retryDelaysMs,
      importEnded: (trx, tenantId, projectId) => scheduler.importEnded(trx, tenantId, projectId),
    });
    const scanJob = defineJob({
      kind: IMPORT_JOBS.scan,
      handler: (job) => scanner.run(job),
      maxAttempts: 5,
      timeoutMs: SCAN_TIMEOUT_MS,
    });
    const laneJob = defineJob({
      kind: IMPORT_JOBS.lane,
      handler: (job) => lane.run(job),
      // A file's failures are retried on the file's own schedule; the job's retries are for a run
      // that died (worker killed, database trouble), so they are many and short.
      maxAttempts: 50,
      backoff: { baseMs: 1_000, maxMs: 60_000 },
      concurrency: config.imports.concurrency,
      timeoutMs: LANE_TIMEOUT_MS,
    });
    const agentJob = defineJob({
      kind: AGENT_RUN_JOB,
      handler: (job) => runner.run(job),
      maxAttempts: 5,
      timeoutMs: AGENT_TIMEOUT_MS,
    });
    return {
      provides: { importProjects: service },
      routes(app) {
        importRoutes(app, { projects: service, agents });
      },
      jobs: [scanJob, laneJob, agentJob],
      onEvent: eventSubscriber((event) => scheduler.onEvent(event), {
        names: ['document.processed', 'document.failed'],
      }),
      async sandboxCleanup(trx, tenantId) {
        await projects.deleteForTenant(trx, tenantId);
      },
      close: () => http.close(),
    };
  },
});
