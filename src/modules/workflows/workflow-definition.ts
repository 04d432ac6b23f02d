import { AppError } from '../../lib/errors.ts';
import type { WorkflowDefinition } from './engine/types.ts';
import type { Workflow } from './workflows.repository.ts';

/** 404 with the contract's workflow code. */
export const workflowNotFound = () => new AppError(404, 'workflow_not_found', 'Workflow not found');

/** The versioned part of a workflow, as its versions store it. */
export function definitionOf(workflow: Pick<Workflow, 'nodes' | 'trigger' | 'errorHandling'>): WorkflowDefinition {
  return { nodes: workflow.nodes, trigger: workflow.trigger, error_handling: workflow.errorHandling };
}
