import type { AgentRunRow } from './agent-runs.repository.ts';
import { AGENT_RUN_STATUSES, type AgentRunStatus } from './imports.tables.ts';
import type { ItemRow } from './items.repository.ts';
import type { AgentRow } from './projects.repository.ts';
import type { Progress, ProjectDetail } from './projects.service.ts';
import { iso } from '../../lib/clock.ts';


/** A project as the API shows it: the configuration without credentials, and its item counts. */
export function presentProject(p: ProjectDetail) {
  const { row, config, counts } = p;
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    source_type: row.source_type,
    status: row.status,
    config: { ...config, has_credentials: row.credentials !== null },
    total_items: counts.total,
    processed_items: counts.imported,
    failed_items: counts.failed,
    skipped_items: counts.skipped,
    progress_percent: counts.percent,
    error: row.error,
    scanned_at: iso(row.scanned_at),
    started_at: iso(row.started_at),
    completed_at: iso(row.completed_at),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

export function presentProgress(p: Progress) {
  return {
    status: p.status,
    total_items: p.counts.total,
    processed_items: p.counts.imported,
    failed_items: p.counts.failed,
    skipped_items: p.counts.skipped,
    pending_items: p.counts.pending,
    progress_percent: p.counts.percent,
    total_bytes: p.bytes.total,
    migrated_bytes: p.bytes.imported,
    current_item: p.currentItem,
    started_at: iso(p.startedAt),
    estimated_completion: iso(p.estimatedCompletion),
  };
}

export function presentItem(row: ItemRow) {
  return {
    id: row.id,
    source_file_id: row.source_file_id,
    name: row.name,
    path: row.path,
    mime_type: row.mime_type,
    size: row.size === null ? null : Number(row.size),
    status: row.status,
    document_id: row.document_id,
    error: row.error,
    attempts: Number(row.attempts),
    skip_reason: row.skip_reason,
  };
}

export function presentAgent(row: AgentRow) {
  return {
    id: row.id,
    project_id: row.project_id,
    agent_type: row.agent_type,
    phase: row.phase,
    batch_size: row.batch_size,
    config: JSON.parse(row.config) as Record<string, unknown>,
    auto_approve: row.auto_approve === 1,
    created_at: iso(row.created_at)!,
  };
}

/** An agent with its runs counted by status (every status present, zero when none). */
export function presentAgentWithRuns({ agent, runs }: { agent: AgentRow; runs: Partial<Record<AgentRunStatus, number>> }) {
  return { ...presentAgent(agent), runs: Object.fromEntries(AGENT_RUN_STATUSES.map((st) => [st, runs[st] ?? 0])) as Record<AgentRunStatus, number> };
}

export function presentAgentRun(row: AgentRunRow & { agent_type: string }) {
  return {
    id: row.id,
    agent_id: row.agent_id,
    agent_type: row.agent_type,
    scope: row.scope,
    status: row.status,
    document_ids: JSON.parse(row.document_ids) as string[],
    proposal: row.proposal === null ? null : (JSON.parse(row.proposal) as unknown),
    result: row.result === null ? null : (JSON.parse(row.result) as unknown),
    task_id: row.task_id,
    error: row.error,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
    finished_at: iso(row.finished_at),
  };
}
