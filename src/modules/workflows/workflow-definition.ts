import { errors } from '../../lib/errors.ts';
import type { WorkflowDefinition } from './engine/types.ts';
import type { Workflow } from './workflows.repository.ts';

/** 404 with the contract's workflow code. */
export const workflowNotFound = errors.workflowNotFound;

/** The versioned part of a workflow, as its versions store it. */
export function definitionOf(workflow: Pick<Workflow, 'nodes' | 'trigger' | 'errorHandling'>): WorkflowDefinition {
  return { nodes: workflow.nodes, trigger: workflow.trigger, error_handling: workflow.errorHandling };
}
