import type { Generated } from 'kysely';

// The imports module's tables (migration 20261125_1200_imports), added to the database type by
// declaration merging so src/db/schema.ts stays free of module knowledge.

/** Spec "States > Import project". */
export const PROJECT_STATUSES = [
  'draft',
  'configured',
  'scanning',
  'ready',
  'in_progress',
  'paused',
  'completed',
  'completed_with_errors',
  'cancelled',
  'failed',
] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];

/** Spec: delete is allowed only in these. */
export const TERMINAL_STATUSES: readonly ProjectStatus[] = [
  'completed',
  'completed_with_errors',
  'cancelled',
  'failed',
];

/** Contract §12: the states of one file. */
export const ITEM_STATUSES = ['pending', 'imported', 'failed', 'skipped'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

export interface ImportProjectsTable {
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  source_type: string;
  status: ProjectStatus;
  /** JSON ProjectConfig without credentials. */
  config: string;
  /** Sealed JSON credentials; null when none were given. */
  credentials: string | null;
  error: string | null;
  created_by: string | null;
  scanned_at: number | null;
  started_at: number | null;
  completed_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface ImportItemsTable {
  id: string;
  tenant_id: string;
  project_id: string;
  source_file_id: string;
  source_folder_id: string;
  name: string;
  path: string;
  mime_type: string;
  size: number | null;
  status: ItemStatus;
  skip_reason: string | null;
  error: string | null;
  attempts: Generated<number>;
  next_attempt_at: Generated<number>;
  lane: number | null;
  document_id: string | null;
  finished_at: number | null;
  created_at: number;
  updated_at: number;
  /** When the imported document finished processing (or failed, or was gone): agents may look at it. */
  settled_at: number | null;
  /** 1, 2, 3... in the order a project's documents settled; batch k of an agent is (k-1)N+1..kN. */
  settled_seq: number | null;
}

export interface ImportFoldersTable {
  tenant_id: string;
  project_id: string;
  source_folder_id: string;
  parent_source_id: string | null;
  name: string;
  folder_id: string | null;
}

export interface ImportAgentsTable {
  id: string;
  tenant_id: string;
  project_id: string;
  agent_type: string;
  phase: string;
  batch_size: number | null;
  config: string;
  auto_approve: number;
  created_at: number;
}

/** Where an agent run stands (docs/imports.md "Agents"). */
export const AGENT_RUN_STATUSES = ['queued', 'awaiting_approval', 'applied', 'rejected', 'expired', 'failed'] as const;
export type AgentRunStatus = (typeof AGENT_RUN_STATUSES)[number];

/** One run of an agent over the documents of its scope: `document:<id>`, `batch:<k>` or `completion`. */
export interface ImportAgentRunsTable {
  id: string;
  tenant_id: string;
  project_id: string;
  agent_id: string;
  scope: string;
  /** JSON array of document ids. */
  document_ids: string;
  status: AgentRunStatus;
  /** JSON: the proposed changes (the approval task's data). */
  proposal: string | null;
  /** JSON: what was applied. */
  result: string | null;
  task_id: string | null;
  error: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

declare module '../../db/schema.ts' {
  interface DB {
    import_projects: ImportProjectsTable;
    import_items: ImportItemsTable;
    import_folders: ImportFoldersTable;
    import_agents: ImportAgentsTable;
    import_agent_runs: ImportAgentRunsTable;
  }
}
