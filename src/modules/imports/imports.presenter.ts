import type { AgentRun } from './agent-runs.repository.ts';
import { AGENT_RUN_STATUSES, type AgentRunStatus } from './imports.tables.ts';
import type { ImportItem } from './items.repository.ts';
import type { ImportAgent } from './projects.repository.ts';
import type { Progress, ProjectDetail } from './projects.service.ts';
import { iso } from '../../lib/clock.ts';

/** A project as the API shows it: the configuration without credentials, and its item counts. */
export function presentProject(p: ProjectDetail) {
  const { project, counts } = p;
  return {
    id: project.id,
    name: project.name,
    description: project.description,
    source_type: project.sourceType,
    status: project.status,
    config: { ...project.config, has_credentials: project.sealedCredentials !== null },
    total_items: counts.total,
    processed_items: counts.imported,
    failed_items: counts.failed,
    skipped_items: counts.skipped,
    progress_percent: counts.percent,
    error: project.error,
    scanned_at: iso(project.scannedAt),
    started_at: iso(project.startedAt),
    completed_at: iso(project.completedAt),
    created_at: iso(project.createdAt)!,
    updated_at: iso(project.updatedAt)!,
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

export function presentItem(item: ImportItem) {
  return {
    id: item.id,
    source_file_id: item.sourceFileId,
    name: item.name,
    path: item.path,
    mime_type: item.mimeType,
    size: item.size,
    status: item.status,
    document_id: item.documentId,
    error: item.error,
    attempts: item.attempts,
    skip_reason: item.skipReason,
  };
}

export function presentAgent(agent: ImportAgent) {
  return {
    id: agent.id,
    project_id: agent.projectId,
    agent_type: agent.agentType,
    phase: agent.phase,
    batch_size: agent.batchSize,
    config: agent.config,
    auto_approve: agent.autoApprove,
    created_at: iso(agent.createdAt)!,
  };
}

/** An agent with its runs counted by status (every status present, zero when none). */
export function presentAgentWithRuns({
  agent,
  runs,
}: {
  agent: ImportAgent;
  runs: Partial<Record<AgentRunStatus, number>>;
}) {
  return {
    ...presentAgent(agent),
    runs: Object.fromEntries(AGENT_RUN_STATUSES.map((st) => [st, runs[st] ?? 0])) as Record<AgentRunStatus, number>,
  };
}

export function presentAgentRun(run: AgentRun & { agentType: string }) {
  return {
    id: run.id,
    agent_id: run.agentId,
    agent_type: run.agentType,
    scope: run.scope,
    status: run.status,
    document_ids: run.documentIds,
    proposal: run.proposal,
    result: run.result,
    task_id: run.taskId,
    error: run.error,
    created_at: iso(run.createdAt)!,
    updated_at: iso(run.updatedAt)!,
    finished_at: iso(run.finishedAt),
  };
}
