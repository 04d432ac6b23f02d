import { Type } from 'typebox';
import { Nullable, Timestamp } from '../../http/common-schemas.ts';

const Confidence = Type.Number({ minimum: 0, maximum: 1, description: 'How sure the AI is, 0 to 1.' });
const NamedEntity = Type.Object({ name: Type.String(), confidence: Confidence });

const Entities = Type.Object({
  people: Type.Array(Type.String()),
  organizations: Type.Array(Type.String()),
  dates: Type.Array(Type.String(), { description: 'ISO 8601 dates (YYYY-MM-DD).' }),
  locations: Type.Array(Type.String(), { description: 'Addition: cities, regions and countries.' }),
  amounts: Type.Array(
    Type.Object({
      value: Type.Number(),
      currency: Type.String({ description: 'ISO 4217 code.' }),
      text: Type.String({ description: 'As written in the document.' }),
      confidence: Nullable(Confidence),
    }),
    {
      description: 'Addition: money amounts; `confidence` is null for documents enriched before confidences were kept.',
    },
  ),
  details: Nullable(
    Type.Object(
      {
        people: Type.Array(NamedEntity),
        organizations: Type.Array(NamedEntity),
        locations: Type.Array(NamedEntity),
        dates: Type.Array(
          Type.Object({
            value: Type.String({ description: 'YYYY-MM-DD.' }),
            text: Type.String({ description: 'As written.' }),
            confidence: Confidence,
            alternatives: Type.Optional(
              Type.Array(Type.String(), {
                description: 'Other days an ambiguous date could be (03/04/2025 read the other way).',
              }),
            ),
          }),
        ),
      },
      {
        description:
          'Addition: each entity with its confidence; null for documents enriched before confidences were kept.',
      },
    ),
  ),
});

/** Present, and true, on a result a person confirmed or corrected in an AI review (docs/processing.md, "Review"). */
const Confirmed = Type.Optional(
  Type.Literal(true, {
    description: 'Present (true) when a person confirmed or corrected it in an AI review; a reprocess keeps it.',
  }),
);

const DocumentType = Nullable(
  Type.Object(
    {
      value: Type.String({
        description:
          '`invoice`, `receipt`, `purchase_order`, `quote`, `contract`, `lease`, `nda`, `employment_letter`, `policy`, `minutes`, `memo`, `report`, `letter`, `email`, `cv`, `statement` or `other`.',
      }),
      confidence: Confidence,
      confirmed: Confirmed,
    },
    {
      description:
        'Addition: the kind of document, as the AI classified it; null before enrichment, while it waits for review (`ai_review`) and when a reviewer rejected it.',
    },
  ),
);

const FieldValue = Type.Union([
  Type.String(),
  Type.Array(Type.String()),
  Type.Object({
    value: Type.Number(),
    currency: Type.String(),
    text: Type.String(),
    period: Type.Optional(
      Type.String({ description: '`hour`, `day`, `week`, `month`, `quarter` or `year` for recurring sums.' }),
    ),
  }),
  Type.Object({ value: Type.String({ description: 'ISO 8601 duration (`P12M`).' }), text: Type.String() }),
]);

const ProcessingError = Nullable(Type.Object({ stage: Type.String(), message: Type.String() }));

/** Fields every document view has (the list item). */
const documentFields = {
  id: Type.String(),
  filename: Type.String({ description: 'Current name.' }),
  original_filename: Type.String({ description: 'Name at upload.' }),
  file_type: Type.String({ description: 'Media type.' }),
  file_size: Type.Integer({ description: 'Bytes.' }),
  folder_id: Nullable(Type.String()),
  status: Type.String({ description: '`processing`, `completed`, `failed`.' }),
  ai_status: Type.String({ description: '`queued`, `processing`, `completed`, `failed`, `skipped`.' }),
  ai_summary: Nullable(Type.String()),
  ai_tags: Type.Array(Type.String()),
  ai_document_type: DocumentType,
  tags: Type.Array(Type.String(), { description: 'Names of the manual tags.' }),
  created_at: Timestamp,
  updated_at: Timestamp,
  processing_progress: Type.Union(
    [
      Type.Object({
        stage: Type.String({
          description:
            '`queued` (waiting for its first step), `extraction` (text, OCR), `transcription`, `enrichment` (AI) or `embedding`.',
        }),
        pages_done: Nullable(
          Type.Integer({ description: 'Pages (PDF pages, TIFF pages) extraction has read so far, OCR included.' }),
        ),
        pages_total: Nullable(
          Type.Integer({
            description: 'Pages extraction will read; null until it knows, and for formats without pages.',
          }),
        ),
      }),
      Type.Null(),
    ],
    {
      description:
        "Addition: while `status` is `processing`, how far it has got (pages OCR'd of total while a scan is read); null once processing ended.",
    },
  ),
};

export const DocumentListItem = Type.Object({
  ...documentFields,
  entities: Type.Optional(
    Type.Object(Entities.properties, { description: 'Only in lists requested with an API key.' }),
  ),
});

export const DocumentDetail = Type.Object({
  ...documentFields,
  storage_path: Type.String(),
  thumbnail_url: Type.String({ format: 'uri' }),
  ai_thumbnail_url: Nullable(Type.String({ format: 'uri', description: 'Set once AI processing produced one.' })),
  entities: Entities,
  ai_summary_confidence: Nullable(Confidence),
  ai_fields: Type.Record(
    Type.String(),
    Type.Object({ value: FieldValue, confidence: Confidence, confirmed: Confirmed }),
    {
      description:
        'Addition: key fields of the document type (docs/processing.md lists them): dates as YYYY-MM-DD, money as {value, currency, text, period?}, durations as {value: ISO 8601, text}, parties as lists. A field waiting for review (`ai_review`) or rejected by a reviewer is absent.',
    },
  ),
  ai_tag_details: Type.Array(
    Type.Object({
      name: Type.String(),
      confidence: Nullable(Confidence),
      source: Type.String({
        description:
          "`extracted` (a topic of the text) or `learned` (one of the tenant's own tags, proposed by the classifier trained on the tenant's tagging once the tag is on 5 documents; its confidence is calibrated).",
      }),
    }),
    {
      description:
        'Addition: `ai_tags` with where each came from and its confidence (null for documents enriched before confidences were kept).',
    },
  ),
  ai_review: Type.Union(
    [
      Type.Object({
        task_id: Type.String({ description: 'The review task in the task inbox (`GET /dag/tasks/{task_id}`).' }),
        pending: Type.Array(Type.String(), {
          description: '`document_type`, `fields.<name>`, `tags.<name>`: the results waiting for a decision.',
        }),
      }),
      Type.Null(),
    ],
    {
      description:
        "Addition: AI results held back because their confidence is below the tenant's `ai_review_threshold`; they are not applied until a person approves or edits them in the review task. Null when nothing waits.",
    },
  ),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  processing_error: ProcessingError,
});

export const DocumentList = Type.Object({
  data: Type.Array(DocumentListItem),
  total: Type.Integer(),
  page: Type.Integer(),
  page_size: Type.Integer(),
  total_pages: Type.Integer(),
});

export const DocumentListQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        default: 20,
        description: "Page size (the spec's name); `page_size` is the same and wins when both are given.",
      }),
    ),
    page_size: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        description: 'Page size, as in every other paged list; the same as `limit`.',
      }),
    ),
    folder_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 128, description: 'A folder id, or `root` for the top level.' }),
    ),
    tag_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    tag_ids: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2600,
        description:
          'Addition: comma-separated tag ids (at most 20, `tag_id` counted with them); the document carries all of them, or any with `tag_match=any`.',
      }),
    ),
    tag_match: Type.Optional(
      Type.Enum(['all', 'any'], {
        default: 'all',
        description: 'Addition: how `tag_ids` (and `tag_id`) combine: `all` (default) or `any`.',
      }),
    ),
    entity: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Addition: documents with an entity (person, organization, date as YYYY-MM-DD, location, amount as written) that starts with this text, case-insensitively (`acme` finds "Acme Corp", `2025-03` every day of March 2025).',
      }),
    ),
    entity_type: Type.Optional(
      Type.Enum(['person', 'organization', 'date', 'location', 'amount'], {
        description: 'Addition: with `entity`, only entities of this kind.',
      }),
    ),
    status: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Addition: comma-separated `status` values (`processing`, `completed`, `failed`); any of them.',
      }),
    ),
    ai_status: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description:
          'Addition: comma-separated `ai_status` values (`queued`, `processing`, `completed`, `failed`, `skipped`); any of them.',
      }),
    ),
    search: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive filename substring.' })),
    sort: Type.Optional(Type.Enum(['name', 'created_at', 'updated_at', 'size'], { default: 'created_at' })),
    order: Type.Optional(Type.Enum(['asc', 'desc'], { default: 'desc' })),
    file_type: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'A media type (`application/pdf`) or an extension (`pdf`).',
      }),
    ),
    date_start: Type.Optional(Type.String({ description: 'ISO 8601 date or date-time; created at or after.' })),
    date_end: Type.Optional(
      Type.String({ description: 'ISO 8601 date (whole day) or date-time; created at or before.' }),
    ),
  },
  { additionalProperties: false },
);

export const UpdateDocumentBody = Type.Object(
  {
    filename: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description:
          "Keeps an extension of the document's type (`.txt` stays text); else 400. Stored in NFC; no `/` or `\\`, not `.` or `..`, no control, text-direction or invisible format characters (the name rule of docs/api-decisions.md §6): else 400 `validation_error` on `filename`.",
      }),
    ),
    folder_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 128 }))),
    tags: Type.Optional(
      Type.Array(Type.String({ maxLength: 100 }), {
        maxItems: 50,
        description: 'Tag names; replaces the set; created on first use.',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

const DuplicateOf = Type.Optional(
  Type.String({
    description: 'A document you can see with the same content (SHA-256): the oldest. Absent when there is none.',
  }),
);

export const UploadResponse = Type.Object({
  id: Type.String(),
  filename: Type.String(),
  status: Type.String(),
  ai_status: Type.String(),
  created_at: Timestamp,
  duplicate_of: DuplicateOf,
});

export const Rejection = Type.Object({
  filename: Type.String(),
  error: Type.String(),
  code: Type.String(),
  message: Type.String(),
});

export const BatchUploadResponse = Type.Object({
  collection_id: Type.String(),
  batch_job_id: Type.String(),
  documents: Type.Array(
    Type.Object({
      id: Type.String(),
      filename: Type.String(),
      status: Type.String(),
      ai_status: Type.String(),
      duplicate_of: DuplicateOf,
    }),
  ),
  rejected: Type.Array(Rejection),
  skipped: Type.Optional(
    Type.Array(Type.Object({ filename: Type.String(), duplicate_of: Type.String() }), {
      description:
        'With `on_duplicate=skip`: the files not stored because a document you can see has the same content.',
    }),
  ),
});

export const DocumentContent = Type.Object({
  content: Type.String(),
  content_type: Type.String({ description: 'Always `extracted_text`.' }),
  length: Type.Integer({ description: 'Characters in `content`.' }),
  pages: Type.Optional(
    Type.Integer({ description: 'Pages (slides, sheets) of the document, where its format has them.' }),
  ),
  page: Type.Optional(Type.Integer({ description: 'The page `content` holds, when one was asked for.' })),
});

export const DocumentContentQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, description: 'Only this page (1-based), for documents with pages.' })),
});

export const ReprocessAnswer = Type.Object({
  message: Type.String(),
  document_id: Type.String(),
  status: Type.String(),
  ai_status: Type.String(),
});

export const AppliedAiTags = Type.Object({
  message: Type.String(),
  tags_applied: Type.Array(Type.String(), {
    description: 'The AI tags added as tags now (those the document already had are left out).',
  }),
});

const FilePart = (description: string) =>
  Type.String({ format: 'binary', contentMediaType: 'application/octet-stream', description });

/** The fields both upload operations take besides their files (upload-fields.ts). */
const uploadFields = {
  on_duplicate: Type.Optional(
    Type.Union([Type.Literal('store'), Type.Literal('skip')], {
      description:
        'What to do with a file identical to a document you can see: `store` (default, answered with `duplicate_of`) or `skip` (nothing stored, the existing document answered with 200).',
    }),
  ),
  // Empty examples: the docs UI pre-fills fields with their example, and an empty field is not sent.
  folder_id: Type.Optional(
    Type.String({
      maxLength: 128,
      examples: [''],
      description: 'The folder to put the document in; omitted or empty: the top level.',
    }),
  ),
  enable_ai: Type.Optional(
    Type.Boolean({
      default: true,
      description:
        '`true`/`false`/`1`/`0`. False skips summary, tags and entities (`ai_status: skipped`); text is still extracted.',
    }),
  ),
  tags: Type.Optional(
    Type.Array(Type.String({ maxLength: 100 }), {
      examples: [[]],
      description:
        'Tag names, created on first use: repeated `tags` parts, `tags[]` parts, one part holding a JSON array, or one comma-separated part.',
    }),
  ),
};

/** The multipart body of `POST /documents/upload`, for the OpenAPI document only (the handler streams the parts itself). */
export const UploadMultipartBody = Type.Object(
  {
    file: FilePart('The file (one). Its bytes must be of the type its name claims, else 415 `invalid_file_type`.'),
    ...uploadFields,
    filename: Type.Optional(
      Type.String({
        maxLength: 255,
        examples: [''],
        description:
          "A name to store instead of the file's own (omitted or empty: the file's own), with an extension of the file's type (else 415). Like the file's own name it is cleaned, not refused: path, control, text-direction and invisible characters are dropped and it is stored in NFC.",
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'multipart/form-data; parts may come in any order. Unknown fields are 400 `validation_error`.',
  },
);

/** The multipart body of `POST /documents/upload-batch`, for the OpenAPI document only. */
export const BatchUploadMultipartBody = Type.Object(
  {
    'files[]': Type.Array(FilePart('One file of the batch.'), {
      minItems: 1,
      maxItems: 10,
      description: 'Up to 10 files, as `files[]` parts (or `files`). Each is accepted or rejected on its own.',
    }),
    ...uploadFields,
  },
  {
    additionalProperties: false,
    description:
      'multipart/form-data; parts may come in any order. The answer names the batch (`collection_id`, `batch_job_id`); `filename` is not taken here.',
  },
);
