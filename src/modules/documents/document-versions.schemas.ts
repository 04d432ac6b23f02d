import { Type } from 'typebox';
import { Nullable, Timestamp } from '../../http/common-schemas.ts';

export const VersionParams = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 128 }),
    number: Type.String({ pattern: '^[1-9][0-9]{0,8}$', description: 'The version number (1, 2, ...).' }),
  },
  { additionalProperties: false },
);

export const DocumentVersion = Type.Object({
  document_id: Type.String(),
  number: Type.Integer({
    minimum: 1,
    description: 'The version number: 1 for the first upload, then 2, 3... in order of arrival; never reused.',
  }),
  current: Type.Boolean({
    description: 'Whether this is the current version (the one downloads, processing, search and chat use).',
  }),
  filename: Type.String({ description: "The uploaded file's own name." }),
  file_type: Type.String({ description: 'Media type.' }),
  file_size: Type.Integer({ description: 'Bytes.' }),
  sha256: Type.String({ description: 'Hex SHA-256 of the bytes (also the ETag of its download).' }),
  created_at: Timestamp,
  created_by: Nullable(Type.String({ description: 'The uploading user; null when uploaded with an API key.' })),
});

export const DocumentVersionList = Type.Object({
  document_id: Type.String(),
  current_version: Type.Integer(),
  versions: Type.Array(DocumentVersion),
});

export const VersionUploadAnswer = Type.Object({
  ...DocumentVersion.properties,
  created: Type.Boolean({
    description: 'False when the file is identical (SHA-256) to the current version: nothing was added (200).',
  }),
  status: Type.String({ description: "The document's processing status (the new version is processed again)." }),
  ai_status: Type.String(),
});

export const VersionRestoreAnswer = Type.Object({
  ...DocumentVersion.properties,
  restored: Type.Boolean({ description: 'False when the version was already current (nothing changed).' }),
});

/** The multipart body of `POST /documents/{id}/versions`, for the OpenAPI document only (the handler streams it). */
export const VersionMultipartBody = Type.Object(
  {
    file: Type.String({
      format: 'binary',
      contentMediaType: 'application/octet-stream',
      description: 'The new file (one), any accepted type, within the limits of an upload.',
    }),
    filename: Type.Optional(
      Type.String({
        maxLength: 255,
        examples: [''],
        description:
          "A new name for the document (omitted: it keeps its name, with the new file's extension when the type changes).",
      }),
    ),
  },
  { additionalProperties: false, description: 'multipart/form-data; parts may come in any order.' },
);
