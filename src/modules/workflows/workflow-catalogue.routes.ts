import { standardErrors } from '../../http/common-schemas.ts';
import { authOf, type App } from '../../http/fastify-types.ts';
import type { WorkflowDefinition } from './engine/types.ts';
import { nodeTypeCatalogue, validateDraft } from './workflow-catalogue.service.ts';
import { DraftBody, NodeTypeList } from './workflow-catalogue.schemas.ts';
import { ValidationAnswer } from './workflows.schemas.ts';

const tags = ['workflows'];
const crud = { rateLimit: 'workflow_crud' };

/**
 * Additions to the spec for editors (docs/api-decisions.md §10 "Node types and drafts"): the node
 * types the engine knows, and the validation of a definition that is not saved.
 */
export function workflowCatalogueRoutes(app: App): void {
  app.get(
    '/dag/node-types',
    {
      config: crud,
      schema: {
        tags,
        operationId: 'listWorkflowNodeTypes',
        summary: 'List the node types a workflow may use',
        description:
          "The engine's catalogue, by name: each type's name in words and palette group, its config fields typed for a form (type, format, required, enum, default, label), its required config keys, which keys hold a CEL condition or a JSONata expression (checked by validation), whether it can wait or call out (validation warns without a timeout), and its default trigger rule. The same for every tenant. Team tier and above; every role.",
        response: { 200: NodeTypeList, ...standardErrors },
      },
    },
    async (request) => ({ node_types: nodeTypeCatalogue(authOf(request)) }),
  );

  app.post<{ Body: WorkflowDefinition }>(
    '/dag/workflows/validate',
    {
      config: crud,
      schema: {
        tags,
        operationId: 'validateWorkflowDraft',
        summary: 'Validate a workflow definition without saving it',
        description:
          'Checks `nodes`, `trigger` and `error_handling` as `POST /dag/workflows/{id}/validate` checks a saved workflow, and answers the same `{valid, errors, warnings, issues}` (`issues`: each error and warning with its code, node and field); nothing is stored and no workflow is named. A body that is not a definition (a node without `id`, an unknown field) is 400 `validation_error`. Team tier and above; anyone but a viewer (403 `forbidden`).',
        body: DraftBody,
        response: { 200: ValidationAnswer, ...standardErrors },
      },
    },
    async (request) => {
      const result = validateDraft(authOf(request), request.body);
      return { valid: result.errors.length === 0, ...result };
    },
  );
}
