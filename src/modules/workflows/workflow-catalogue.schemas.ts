import { Type } from 'typebox';
import { CreateWorkflowBody, WorkflowNodeSchema } from './workflows.schemas.ts';

export const NodeTypeList = Type.Object({
  node_types: Type.Array(
    Type.Object({
      type: Type.String({ description: 'The name a node gives in `type`.' }),
      required: Type.Array(Type.String(), { description: 'Config keys the node must have.' }),
      cel: Type.Array(Type.String(), { description: 'Config keys holding a CEL condition.' }),
      jsonata: Type.Array(Type.String(), { description: 'Config keys holding a JSONata expression.' }),
      waits: Type.Boolean({
        description: 'The node can wait or call out: validation warns when it has no timeout.',
      }),
      default_trigger_rule: Type.String({ description: 'The trigger rule when the node sets none.' }),
    }),
  ),
});

/** A definition to check: the versioned part of a workflow, as create takes it. */
export const DraftBody = Type.Object(
  {
    nodes: Type.Array(WorkflowNodeSchema, { maxItems: 10_000 }),
    trigger: CreateWorkflowBody.properties.trigger,
    error_handling: CreateWorkflowBody.properties.error_handling,
  },
  { additionalProperties: false },
);
