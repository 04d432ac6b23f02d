import { defineModule } from '../../platform/module.ts';
import { createOutboundHttp } from '../../providers/outbound/outbound-http.ts';
import { ExecutionsService, RUN_NODE_JOB, type RunNodePayload } from './executions.service.ts';
import { CONTROL_HANDLERS, httpRequestHandler, loopHandler, type NodeHandler } from './node-handlers.ts';
import { WorkflowsRepository } from './workflows.repository.ts';
import { workflowRoutes } from './workflows.routes.ts';
import { WorkflowsService } from './workflows.service.ts';

export type { ExecutionsService } from './executions.service.ts';
export type { NodeHandler } from './node-handlers.ts';
export type { WorkflowsService } from './workflows.service.ts';

declare module '../../platform/module.ts' {
  interface ModuleServices {
    /** Workflow definitions: versions, lifecycle, validation. */
    workflows: WorkflowsService;
    /** Workflow executions: start, control, and the durable node runner. */
    workflowExecutions: ExecutionsService;
  }
}

/** Workflows (docs/workflows.md): definitions, the pure engine core, and a durable executor driven by jobs. */
export const workflowsModule = defineModule({
  name: 'workflows',
  setup({ config, database, clock, jobs, events }) {
    const repo = new WorkflowsRepository(database.dialect);
    const http = createOutboundHttp({ allowPrivateNetwork: config.allowPrivateNetworkTargets });
    const handlers: Record<string, NodeHandler> = { ...CONTROL_HANDLERS, http_request: httpRequestHandler(http) };
    handlers.loop = loopHandler({ ...handlers });
    const workflows = new WorkflowsService({ database, clock, workflows: repo });
    const executions = new ExecutionsService({ database, clock, workflows: repo, jobs, events, handlers });
    return {
      provides: { workflows, workflowExecutions: executions },
      routes: (app) => workflowRoutes(app, { workflows, executions }),
      jobs: [
        {
          kind: RUN_NODE_JOB,
          // Node failures are recorded by the engine; a thrown error here is infrastructure (retried).
          maxAttempts: 10,
          backoff: { baseMs: 200, maxMs: 30_000 },
          handler: (job) => executions.runNode(job.payload as RunNodePayload, job.signal),
        },
      ],
      sandboxCleanup: (trx, tenantId) => repo.deleteTenant(trx, tenantId),
      close: () => http.close(),
    };
  },
});
