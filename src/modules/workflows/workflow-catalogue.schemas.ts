import { Type } from 'typebox';
import type { NodeField, NodeGroup } from './engine/node-types.ts';
import { CreateWorkflowBody, WorkflowNodeSchema } from './workflows.schemas.ts';

const NodeFieldSchema = Type.Object({
  key: Type.String({ description: 'The config key.' }),
  type: oneOf<NodeField['type']>(['string', 'number', 'integer', 'boolean', 'array', 'object', 'any'], {
    description: 'The JSON type of its value (`any`: a value of any type, or a `{{…}}` template).',
  }),
  format: Type.Optional(
    oneOf<NonNullable<NodeField['format']>>(
      ['cel', 'jsonata', 'multiline', 'cron', 'uri', 'date-time', 'timezone', 'template'],
      { description: 'How a string is written: `cel`/`jsonata` are parsed by validation; `template` may be `{{…}}`.' },
    ),
  ),
  items: Type.Optional(Type.Literal('string', { description: 'The type of an array’s items.' })),
  required: Type.Boolean(),
  enum: Type.Optional(Type.Array(Type.String(), { description: 'The values it may take.' })),
  default: Type.Optional(Type.Unknown({ description: 'What the handler uses when the key is absent.' })),
  label: Type.String({ description: 'Its name in words (English).' }),
  description: Type.Optional(Type.String()),
});

export const NodeTypeList = Type.Object({
  node_types: Type.Array(
    Type.Object({
      type: Type.String({ description: 'The name a node gives in `type`.' }),
      label: Type.String({ description: 'Its name in words (English).' }),
      group: oneOf<NodeGroup>(['logic', 'data', 'ai', 'human', 'out'], { description: 'Where a palette shows it.' }),
      fields: Type.Array(NodeFieldSchema, {
        description: 'Every config key its handler reads, in the order a form shows them.',
      }),
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

/** A union of literals (refused as "must be one of …"), typed as the catalogue's type. */
function oneOf<T extends string>(values: readonly T[], options: { description: string }) {
  return Type.Unsafe<T>(
    Type.Union(
      values.map((v) => Type.Literal(v)),
      options,
    ),
  );
}

/** A definition to check: the versioned part of a workflow, as create takes it. */
export const DraftBody = Type.Object(
  {
    nodes: Type.Array(WorkflowNodeSchema, { maxItems: 10_000 }),
    trigger: CreateWorkflowBody.properties.trigger,
    error_handling: CreateWorkflowBody.properties.error_handling,
  },
  { additionalProperties: false },
);
