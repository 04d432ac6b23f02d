import { Type } from 'typebox';
import { Nullable, PageQuery, Paged, Timestamp } from '../../http/common-schemas.ts';
import { EXPORT_FORMATS } from './export-formats.ts';
import { AGENT_RUN_STATUSES, type AgentRunStatus, ITEM_STATUSES, PROJECT_STATUSES } from './imports.tables.ts';

const literals = (values: readonly string[]) => Type.String({ enum: [...values] });
const Id = Type.String({ minLength: 1, maxLength: 256 });
const TypeList = Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 100 });

const Credentials = Type.Object(
  {
    access_token: Type.String({ minLength: 1, maxLength: 4096 }),
    refresh_token: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    client_id: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    client_secret: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  },
  { additionalProperties: false, description: 'OAuth credentials; stored encrypted and never shown again.' },
);

const Filters = Type.Object(
  {
    include_types: Type.Optional(TypeList),
    exclude_types: Type.Optional(TypeList),
    max_file_size_bytes: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
    exclude_patterns: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 100 })),
    include_shared: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const ExportFormatsInput = Type.Object(
  {
    document: Type.Optional(literals(EXPORT_FORMATS.document)),
    spreadsheet: Type.Optional(literals(EXPORT_FORMATS.spreadsheet)),
    presentation: Type.Optional(literals(EXPORT_FORMATS.presentation)),
    drawing: Type.Optional(literals(EXPORT_FORMATS.drawing)),
  },
  { additionalProperties: false },
);

export const ConfigBody = Type.Object(
  {
    folder_ids: Type.Optional(Type.Array(Id, { maxItems: 100 })),
    credentials: Type.Optional(Credentials),
    target_folder_id: Type.Optional(Nullable(Id)),
    enable_ai: Type.Optional(Type.Boolean()),
    filters: Type.Optional(Filters),
    export_formats: Type.Optional(ExportFormatsInput),
  },
  { additionalProperties: false },
);

export const CreateProjectBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    source_type: Type.Literal('google_drive', {
      description: 'Only `google_drive` today; other providers are announced as future.',
    }),
    config: Type.Optional(ConfigBody),
  },
  { additionalProperties: false },
);

export const UpdateProjectBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    config: Type.Optional(ConfigBody),
  },
  { additionalProperties: false, minProperties: 1 },
);

const ConfigView = Type.Object({
  folder_ids: Type.Array(Type.String()),
  target_folder_id: Nullable(Type.String()),
  enable_ai: Type.Boolean(),
  filters: Type.Object({
    include_types: Type.Array(Type.String()),
    exclude_types: Type.Array(Type.String()),
    max_file_size_bytes: Nullable(Type.Integer()),
    exclude_patterns: Type.Array(Type.String()),
    include_shared: Type.Boolean(),
  }),
  export_formats: Type.Object({
    document: Type.String(),
    spreadsheet: Type.String(),
    presentation: Type.String(),
    drawing: Type.String(),
  }),
  has_credentials: Type.Boolean({ description: 'Whether credentials are stored (they are never shown).' }),
});

const Counts = {
  total_items: Type.Integer(),
  processed_items: Type.Integer({ description: 'Imported files.' }),
  failed_items: Type.Integer(),
  skipped_items: Type.Integer({ description: 'Excluded by the filters, or duplicates.' }),
  progress_percent: Type.Number(),
};

export const ProjectView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  source_type: Type.String(),
  status: literals(PROJECT_STATUSES),
  config: ConfigView,
  ...Counts,
  error: Nullable(Type.String({ description: 'Why the scan failed (status `failed`).' })),
  scanned_at: Nullable(Timestamp),
  started_at: Nullable(Timestamp),
  completed_at: Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const ProjectList = Paged(ProjectView);

export const ProgressView = Type.Object({
  status: literals(PROJECT_STATUSES),
  ...Counts,
  pending_items: Type.Integer(),
  total_bytes: Type.Integer(),
  migrated_bytes: Type.Integer(),
  current_item: Nullable(Type.String({ description: 'Path of a file being imported now.' })),
  started_at: Nullable(Timestamp),
  estimated_completion: Nullable(Timestamp),
});

export const ItemView = Type.Object({
  id: Type.String(),
  source_file_id: Type.String(),
  name: Type.String(),
  path: Type.String(),
  mime_type: Type.String(),
  size: Nullable(Type.Integer()),
  status: literals(ITEM_STATUSES),
  document_id: Nullable(Type.String()),
  error: Nullable(Type.String()),
  attempts: Type.Integer(),
  skip_reason: Nullable(Type.String()),
});

export const ItemList = Paged(ItemView);

export const ItemListQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(literals(ITEM_STATUSES)),
    type: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: 'An extension (`pdf`) or a media type.' }),
    ),
    min_size: Type.Optional(Type.Integer({ minimum: 0 })),
    max_size: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

export const AGENT_TYPES = ['ai_tag', 'ai_classify', 'ai_summarize', 'ai_extract', 'workflow'] as const;
export const AGENT_PHASES = ['post-import', 'batch', 'completion'] as const;

export const AgentBody = Type.Object(
  {
    agent_type: literals(AGENT_TYPES),
    phase: literals(AGENT_PHASES),
    batch_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
    config: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    auto_approve: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const AgentView = Type.Object({
  id: Type.String(),
  project_id: Type.String(),
  agent_type: Type.String(),
  phase: Type.String(),
  batch_size: Nullable(Type.Integer()),
  config: Type.Object({}, { additionalProperties: true }),
  auto_approve: Type.Boolean(),
  created_at: Timestamp,
});

const RunCounts = Type.Object(
  Object.fromEntries(AGENT_RUN_STATUSES.map((st) => [st, Type.Integer()])) as Record<
    AgentRunStatus,
    ReturnType<typeof Type.Integer>
  >,
);

export const AgentList = Type.Object({
  data: Type.Array(Type.Intersect([AgentView, Type.Object({ runs: RunCounts })])),
});

export const AgentRunView = Type.Object({
  id: Type.String(),
  agent_id: Type.String(),
  agent_type: Type.String(),
  scope: Type.String({ description: '`document:<id>` (post-import), `batch:<k>` or `completion`' }),
  status: literals(AGENT_RUN_STATUSES),
  document_ids: Type.Array(Type.String()),
  proposal: Type.Unknown({ description: "The proposed changes (the approval task's data), as approved or edited" }),
  result: Type.Unknown({
    description: 'What was applied: `{documents: [{document_id, changed}]}` or `{execution_id}`',
  }),
  task_id: Nullable(Type.String()),
  error: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
  finished_at: Nullable(Timestamp),
});

export const AgentRunList = Paged(AgentRunView);

export const AgentRunQuery = Type.Object(
  {
    ...PageQuery,
    agent_id: Type.Optional(Type.String({ maxLength: 64 })),
    status: Type.Optional(literals(AGENT_RUN_STATUSES)),
  },
  { additionalProperties: false },
);
