import type { RunNodePayload } from './execution-engine.ts';
import type { TaskTimerPayload } from './tasks.service.ts';
import type { ScheduleTickPayload } from './triggers/schedule-trigger.ts';

/** The workflows module's job kinds and their payloads (RUN_NODE_JOB, TASK_TIMER_JOB, SCHEDULE_TICK_JOB). */
declare module '../../jobs/job-types.ts' {
  interface JobPayloads {
    'workflows.run_node': RunNodePayload;
    'workflows.task_timer': TaskTimerPayload;
    'workflows.schedule_tick': ScheduleTickPayload;
  }
}
