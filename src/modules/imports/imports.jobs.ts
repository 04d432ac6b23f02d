import type { AgentRunPayload } from './agent-runner.ts';
import type { LanePayload, ScanPayload } from './import-job-kinds.ts';

/** The imports module's job kinds and their payloads (IMPORT_JOBS, AGENT_RUN_JOB). */
declare module '../../jobs/job-types.ts' {
  interface JobPayloads {
    'imports.scan': ScanPayload;
    'imports.lane': LanePayload;
    'imports.agent': AgentRunPayload;
  }
}
