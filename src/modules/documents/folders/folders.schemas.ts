import { Type } from 'typebox';
import { Nullable, Timestamp } from '../../../http/common-schemas.ts';

const Color = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: 'Hex colour `#RRGGBB`; default `#6B7280`.' });
const Icon = Type.String({ pattern: '^[a-z0-9_-]{1,64}$', description: '1 to 64 of `a-z0-9-_`; default `folder`.' });
const Name = Type.String({
  minLength: 1,
  maxLength: 255,
  description:
    'Stored in Unicode NFC, trimmed; 1 to 255 characters; no `/`, not `.` or `..`; no control, text-direction (U+202A–202E, U+2066–2069, U+200E/F, U+061C) or invisible format characters (zero-width joiners only inside emoji and joining scripts); else 400 `validation_error` on `name`. Unique among siblings by its NFKC, case-folded form (`Café` in NFC and NFD are one name): 409 `conflict`.',
});
const FolderId = Type.String({ minLength: 1, maxLength: 128 });
/** docs/api-decisions.md §9: booleans accept `true`/`false`/`1`/`0` (read with parseBooleanField). */
const QueryBoolean = (description: string, fallback: boolean) =>
  Type.String({ enum: ['true', 'false', '1', '0'], default: String(fallback), description });

export const FolderView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  parent_id: Nullable(Type.String()),
  color: Type.String(),
  icon: Type.String(),
  document_count: Type.Optional(
    Type.Integer({ description: 'Documents directly inside the folder (that the caller can see).' }),
  ),
  created_at: Timestamp,
  updated_at: Type.Optional(Timestamp),
});

export const FolderList = Type.Object({ folders: Type.Array(FolderView) });

export const FolderListQuery = Type.Object(
  {
    parent_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        description: 'Omitted: every folder, flat. `root`: top level. An id: its children.',
      }),
    ),
    include_document_count: Type.Optional(QueryBoolean('`true`/`false`/`1`/`0`; default true.', true)),
  },
  { additionalProperties: false },
);

export const CreateFolderBody = Type.Object(
  {
    name: Name,
    parent_id: Type.Optional(Nullable(FolderId)),
    color: Type.Optional(Color),
    icon: Type.Optional(Icon),
  },
  { additionalProperties: false },
);

export const UpdateFolderBody = Type.Object(
  {
    name: Type.Optional(Name),
    color: Type.Optional(Color),
    icon: Type.Optional(Icon),
    parent_id: Type.Optional(Nullable(FolderId)),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'Partial: only the fields given change. `parent_id` moves the folder.',
  },
);

export const DeleteFolderQuery = Type.Object(
  {
    force: Type.Optional(
      QueryBoolean('`true`/`1`: delete the folder with its subfolders and documents; default false.', false),
    ),
  },
  { additionalProperties: false },
);
