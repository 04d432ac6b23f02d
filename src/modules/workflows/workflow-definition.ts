import { AppError } from '../../lib/errors.ts';
import { parseJson } from '../../lib/json.ts';
import type { WorkflowDefinition, WorkflowNode } from './engine/types.ts';
import type { WorkflowRow } from './workflows.repository.ts';

/** 404 with the contract's workflow code. */
export const workflowNotFound = () => new AppError(404, 'workflow_not_found', 'Workflow not found');

/** The versioned part of a workflow row, parsed. */
export function definitionOf(row: Pick<WorkflowRow, 'nodes' | 'trigger' | 'error_handling'>): WorkflowDefinition {
  return {
    nodes: parseJson<WorkflowNode[]>(row.nodes, []),
    trigger: parseJson(row.trigger, { type: 'manual' }),
    error_handling: parseJson(row.error_handling, {}),
  };
}
