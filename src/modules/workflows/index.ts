import { eventSubscriber } from '../../events/event-log.ts';
import { defineModule } from '../../platform/module.ts';
import { outboundHttpFromConfig } from '../../providers/outbound/outbound-from-config.ts';
import { ActingPrincipals } from './acting-principal.ts';
import { ExpressionEvaluator } from './engine/expression-evaluator.ts';
import { ExecutionEngine, RUN_NODE_JOB } from './execution-engine.ts';
import { ExecutionsService } from './executions.service.ts';
import { controlHandlers, httpRequestHandler, type NodeHandler } from './node-handlers.ts';
import { NodeRunner } from './node-runner.ts';
import { aiHandlers, type DocumentAi, documentAi } from './nodes/ai-nodes.ts';
import { humanHandler } from './nodes/human-nodes.ts';
import { loopHandler } from './nodes/loop-node.ts';
import { mcpToolHandler } from './nodes/mcp-tool-node.ts';
import { notificationHandler } from './nodes/notification-node.ts';
import { scheduleHandler } from './nodes/schedule-node.ts';
import { schemaChecker } from './nodes/schema-check.ts';
import { ReadyRuns } from './ready-runs.ts';
import { TasksRepository } from './tasks.repository.ts';
import { taskRoutes } from './tasks.routes.ts';
import { TASK_TIMER_JOB, TasksService } from './tasks.service.ts';
import { DocumentTrigger } from './triggers/document-trigger.ts';
import { SCHEDULE_TICK_JOB, ScheduleTrigger } from './triggers/schedule-trigger.ts';
import { webhookTriggerRoutes } from './triggers/webhook-trigger.routes.ts';
import { WebhookTrigger } from './triggers/webhook-trigger.ts';
import { workflowCatalogueRoutes } from './workflow-catalogue.routes.ts';
import { WORKFLOW_EVENTS } from './workflows.events.ts';
import { WorkflowsRepository } from './workflows.repository.ts';
import { workflowRoutes } from './workflows.routes.ts';
import { WorkflowsService } from './workflows.service.ts';

export type { ExecutionsService } from './executions.service.ts';
export type { NodeHandler } from './node-handlers.ts';
export type { DocumentAi } from './nodes/ai-nodes.ts';
export type { Task, TaskRefCondition } from './tasks.repository.ts';
export type { NewTask, TaskAccess, TaskOutcome, TaskSource, TasksService } from './tasks.service.ts';
export type { WorkflowsService } from './workflows.service.ts';

declare module '../../platform/module.ts' {
  interface ModuleServices {
    /** Workflow definitions: versions, lifecycle, validation. */
    workflows: WorkflowsService;
    /** Workflow executions: start, control, and the durable node runner. */
    workflowExecutions: ExecutionsService;
    /** The human task inbox; other modules add tasks of their own source (TasksService.registerSource). */
    humanTasks: TasksService;
    /** The AI nodes' methods on a document (summary, classification, extraction, tags). */
    documentAi: DocumentAi;
  }
}

/**
 * Infrastructure failures of a workflow job are retried; node failures are recorded by the engine.
 * Node time limits are the engine's (`timeout_seconds`), so the job's own limit is only a backstop
 * well above any node's (the default, the lease, would cut a long HTTP call short).
 */
const RETRIED = { maxAttempts: 10, backoff: { baseMs: 200, maxMs: 30_000 }, timeoutMs: 6 * 3_600_000 };

/** Workflows (docs/workflows.md): definitions, the pure engine core, a durable executor driven by jobs, human tasks and triggers. */
export const workflowsModule = defineModule({
  name: 'workflows',
  setup({ config, database, clock, jobs, events, logger, use }) {
    const repo = new WorkflowsRepository(database.dialect);
    const mail = use('mail');
    // User-written expressions and schemas run in child processes under config.expressions' limits (started on first use).
    const expressions = new ExpressionEvaluator(config.expressions);
    const http = outboundHttpFromConfig(config);
    // Runs made ready here are often run here too: their jobs start from what the transition knew.
    const ready = new ReadyRuns();
    const engine = new ExecutionEngine({ clock, workflows: repo, jobs, events, mail, ready });
    const tasks = new TasksService({
      database,
      clock,
      tasks: new TasksRepository(),
      engine,
      workflows: repo,
      jobs,
      events,
      mail,
      members: use('members'),
    });
    const human = humanHandler(tasks);
    const principals = new ActingPrincipals({ tenants: use('tenantDirectory'), members: use('members') });
    const library = { database, ai: use('ai'), documents: use('documentPipeline'), access: use('documentAccess') };
    const handlers: Record<string, NodeHandler> = {
      ...controlHandlers(expressions),
      http_request: httpRequestHandler(http),
      schedule: scheduleHandler,
      notification: notificationHandler(mail),
      human_approval: human,
      human_review: human,
      human_assignment: human,
      mcp_tool: mcpToolHandler(use('mcpServers')),
      ...aiHandlers({ ...library, passages: use('passages'), checkSchema: schemaChecker() }),
    };
    handlers.loop = loopHandler({ ...handlers });
    const runner = new NodeRunner({
      database,
      clock,
      engine,
      workflows: repo,
      handlers,
      expressions,
      principals,
      ready,
    });
    const schedule = new ScheduleTrigger({ database, clock, workflows: repo, jobs });
    const workflows = new WorkflowsService({ database, clock, workflows: repo, schedule });
    const executions = new ExecutionsService({ database, clock, engine, workflows: repo, jobs });
    schedule.bind(executions);
    const uploads = new DocumentTrigger({
      database,
      workflows: repo,
      documents: use('documentPipeline'),
      folders: use('folderPaths'),
      executions,
      principals,
      access: use('documentAccess'),
      logger,
    });
    const hooks = new WebhookTrigger({ database, workflows: repo, executions, expressions });
    return {
      eventSchemas: WORKFLOW_EVENTS,
      provides: { workflows, workflowExecutions: executions, humanTasks: tasks, documentAi: documentAi(library) },
      async routes(app) {
        workflowRoutes(app, { workflows, executions });
        workflowCatalogueRoutes(app);
        taskRoutes(app, { tasks });
        await webhookTriggerRoutes(app, { hooks });
      },
      jobs: [
        {
          kind: RUN_NODE_JOB,
          ...RETRIED,
          handler: (job) => runner.run(job),
          onProcessDied: (trx, job) => runner.processDied(trx, job),
        },
        { kind: TASK_TIMER_JOB, ...RETRIED, handler: (job) => tasks.fire(job) },
        { kind: SCHEDULE_TICK_JOB, ...RETRIED, handler: (job) => schedule.tick(job) },
      ],
      onEvent: eventSubscriber((event) => uploads.onEvent(event), {
        names: ['document.processed', 'document.updated'],
      }),
      sandboxCleanup: (trx, tenantId) => repo.deleteTenant(trx, tenantId),
      close: async () => {
        await Promise.all([http.close(), expressions.close()]);
      },
    };
  },
});
