import type { Operations, OPERATIONS } from './generated/api-types.ts';

/** An operationId of the API. */
export type OperationId = keyof Operations;

/** The operations that answer JSON (everything but downloads, thumbnails and MCP). */
export type JsonOperationId = {
  [K in OperationId]: (typeof OPERATIONS)[K]['answers'] extends 'json' ? K : never;
}[OperationId];

/** Per-call options every operation takes. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Sent as Idempotency-Key; by default the client generates one for POST and PATCH operations that take it. */
  idempotencyKey?: string;
  /** Sent as If-Match: the update is refused (PreconditionFailedError, 412) if the resource changed since this ETag was read. */
  ifMatch?: string;
  headers?: Record<string, string>;
}

// Optional keys stay optional, required stay required: `path` and a required `body` must be given.
type PathPart<O> = O extends { path: infer P } ? { path: P } : { path?: undefined };
type QueryPart<O> = O extends { query: infer Q } ? { query?: Q } : { query?: undefined };
type BodyPart<O> = O extends { body: infer B }
  ? { body: B }
  : O extends { body?: infer B }
    ? { body?: B }
    : { body?: undefined };

// One conditional over the operation, distributing once: for a union of operations this is the
// union of their inputs. Three separate conditionals would each distribute and their intersection
// multiply (paths × queries × bodies), passing the compiler's union limit as operations are added (TS2590).
type InputOf<O> = O extends unknown ? PathPart<O> & QueryPart<O> & BodyPart<O> : never;

/** What `call(op, input)` takes for an operation. */
export type OperationInput<K extends OperationId> = InputOf<Operations[K]> & CallOptions;

/** The input argument: optional when nothing in it is required. */
export type InputArgs<K extends OperationId> =
  Record<string, never> extends Omit<OperationInput<K>, keyof CallOptions>
    ? [input?: OperationInput<K>]
    : [input: OperationInput<K>];

/** The JSON answer of an operation. */
export type OperationResponse<K extends OperationId> = Operations[K]['response'];

/** The operations answering a page of a list (`page` in the query). */
export type PagedOperationId = {
  [K in JsonOperationId]: Operations[K] extends { query: { page?: number } }
    ? ItemOf<Operations[K]['response']> extends never
      ? never
      : K
    : never;
}[JsonOperationId];

/** The element type of a list answer: `data`, or the spec's own envelopes (`webhooks`, `folders`, `shares`). */
export type ItemOf<R> = R extends { data: (infer T)[] } ? T : R extends { webhooks: (infer T)[] } ? T : never;

export type Document = Operations['getDocument']['response'];
export type DocumentSummary = ItemOf<Operations['listDocuments']['response']>;
export type Folder = Operations['getFolder']['response'];
export type SearchResponse = Operations['search']['response'];
export type ChatAnswer = Operations['askChatSession']['response'];
export type UploadResponse = Operations['uploadDocument']['response'];
export type BatchUploadResponse = Operations['uploadDocumentBatch']['response'];
export type Webhook = Operations['getWebhook']['response'];
export type DocumentVersion = Operations['listDocumentVersions']['response']['versions'][number];
export type DocumentVersionList = Operations['listDocumentVersions']['response'];
export type VersionUploadResponse = Operations['uploadDocumentVersion']['response'];
export type VersionRestoreResponse = Operations['restoreDocumentVersion']['response'];
