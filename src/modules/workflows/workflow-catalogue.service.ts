import type { AuthContext } from '../../domain/auth-context.ts';
import { requireCreate } from '../../domain/roles.ts';
import { requireFeature } from '../../domain/tier-gate.ts';
import { NODE_TYPES, type NodeField, type NodeGroup } from './engine/node-types.ts';
import type { ValidationResult, WorkflowDefinition } from './engine/types.ts';
import { validateWorkflow } from './engine/validate.ts';

/**
 * What an editor needs before anything is saved (docs/api-decisions.md §10, "Node types and drafts"):
 * the engine's catalogue of node types, and the validation of a definition sent in the body. Both
 * read nothing of the tenant: the catalogue is the engine's, a draft is checked as `POST …/validate`
 * checks a saved workflow, and nothing is stored.
 */

/** A node type as `GET /dag/node-types` answers it. */
export interface NodeTypeEntry {
  type: string;
  label: string;
  group: NodeGroup;
  fields: NodeField[];
  required: string[];
  cel: string[];
  jsonata: string[];
  waits: boolean;
  default_trigger_rule: string;
}

/** The engine's node types, by name. Team tier and above, every role (a viewer reads workflows' steps too). */
export function nodeTypeCatalogue(auth: AuthContext): NodeTypeEntry[] {
  requireFeature(auth, 'workflows');
  return Object.entries(NODE_TYPES)
    .map(([type, spec]) => ({
      type,
      label: spec.label,
      group: spec.group,
      fields: spec.fields.map((f) => ({ ...f, ...(f.enum ? { enum: [...f.enum] } : {}) })),
      required: [...spec.required],
      cel: [...spec.cel],
      jsonata: [...spec.jsonata],
      waits: spec.waits === true,
      default_trigger_rule: spec.defaultRule ?? 'all_success',
    }))
    .sort((a, b) => a.type.localeCompare(b.type));
}

/** A definition checked without saving it. Team tier and above; anyone who may create workflows (viewers 403). */
export function validateDraft(auth: AuthContext, definition: WorkflowDefinition): ValidationResult {
  requireFeature(auth, 'workflows');
  requireCreate(auth, 'workflows');
  return validateWorkflow({ nodes: definition.nodes, ...(definition.trigger ? { trigger: definition.trigger } : {}) });
}
