import type { Database } from '../../../db/database.ts';
import type { Executor } from '../../../db/executor.ts';
import type { JobQueue } from '../../../jobs/job-queue.ts';
import type { RunningJob } from '../../../jobs/job-types.ts';
import type { Clock } from '../../../lib/clock.ts';
import { nextOccurrence } from '../engine/cron.ts';
import type { Workflow, WorkflowsRepository } from '../workflows.repository.ts';

/** The job that fires one tick of a workflow's schedule trigger. */
export const SCHEDULE_TICK_JOB = 'workflows.schedule_tick';
export interface ScheduleTickPayload {
  tenantId: string;
  workflowId: string;
  /** The tick (epoch ms); stale when the workflow's `next_run_at` moved on. */
  scheduledFor: number;
}

/** What a tick needs of the executions service (a narrow type keeps the import graph acyclic). */
export interface TriggerStarter {
  startFromTrigger(
    trx: Executor,
    workflow: Workflow,
    triggerType: string,
    triggerData: Record<string, unknown>,
    triggerKey: string,
  ): Promise<unknown>;
}

/**
 * The `schedule` trigger: the next tick is stored on the workflow (`next_run_at`) and a job is due
 * at it. A tick starts one execution (its trigger key is unique, and the job queue runs each job
 * once across processes), then arms the following tick counted from now, so ticks missed while
 * the service was down run once, not once each.
 */
export class ScheduleTrigger {
  readonly #database: Database;
  readonly #clock: Clock;
  readonly #repo: WorkflowsRepository;
  readonly #jobs: JobQueue;
  #executions: TriggerStarter | undefined;

  constructor(deps: { database: Database; clock: Clock; workflows: WorkflowsRepository; jobs: JobQueue }) {
    this.#database = deps.database;
    this.#clock = deps.clock;
    this.#repo = deps.workflows;
    this.#jobs = deps.jobs;
  }

  /** Set once the executions service exists (it is built after the workflows service that arms ticks). */
  bind(executions: TriggerStarter): void {
    this.#executions = executions;
  }

  /** After a workflow changed (in its transaction): arm its next tick, or disarm it (an older tick's job then finds itself stale). */
  async arm(trx: Executor, workflow: Workflow, after = this.#clock.now()): Promise<void> {
    const trigger = scheduleOf(workflow);
    const next = workflow.status === 'active' && trigger ? nextOccurrence(trigger.cron, trigger.timezone, after) : null;
    await this.#repo.updateWorkflow(trx, workflow.tenantId, workflow.id, { nextRunAt: next });
    if (next === null) return;
    const payload: ScheduleTickPayload = { tenantId: workflow.tenantId, workflowId: workflow.id, scheduledFor: next };
    await this.#jobs.enqueue(trx, SCHEDULE_TICK_JOB, payload, {
      runAt: next,
      uniqueKey: `wfsched:${workflow.id}:${next}`,
      tenantId: workflow.tenantId,
    });
  }

  async tick(job: RunningJob<ScheduleTickPayload>): Promise<void> {
    const { tenantId, workflowId, scheduledFor } = job.payload;
    await this.#database.db.transaction().execute(async (trx) => {
      await job.completeIn(trx);
      const workflow = await this.#repo.findWorkflow(trx, tenantId, workflowId);
      if (workflow?.status !== 'active' || workflow.nextRunAt !== scheduledFor) return; // disarmed or moved
      await this.#executions!.startFromTrigger(
        trx,
        workflow,
        'schedule',
        { scheduled_for: new Date(scheduledFor).toISOString() },
        `schedule:${workflowId}:${scheduledFor}`,
      );
      await this.arm(trx, { ...workflow }, Math.max(this.#clock.now(), scheduledFor));
    });
  }
}

function scheduleOf(workflow: Workflow): { cron: string; timezone: string | undefined } | null {
  const trigger = workflow.trigger;
  if (trigger.type !== 'schedule' || typeof trigger.conditions?.cron_expression !== 'string') return null;
  const tz = trigger.conditions.timezone;
  return { cron: trigger.conditions.cron_expression, timezone: typeof tz === 'string' ? tz : undefined };
}
