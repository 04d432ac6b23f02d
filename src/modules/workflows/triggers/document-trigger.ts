import type { Database } from '../../../db/database.ts';
import type { RecordedEvent } from '../../../events/record-event.ts';
import { principalKey } from '../../../domain/principal.ts';
import { AppError } from '../../../lib/errors.ts';
import type { Logger } from '../../../lib/logger.ts';
import type { ModuleServices } from '../../../platform/module.ts';
import { type ActingPrincipals, PrincipalUnavailable } from '../acting-principal.ts';
import type { ExecutionsService } from '../executions.service.ts';
import type { Workflow, WorkflowsRepository } from '../workflows.repository.ts';

type DocumentStore = Pick<ModuleServices['documentPipeline'], 'find'>;
type FolderPaths = ModuleServices['folderPaths'];
type DocumentAccess = ModuleServices['documentAccess'];

/** What a `document_upload` trigger's conditions test and its `trigger_data` carry (contract §10). */
export interface UploadFacts {
  document_id: string;
  filename: string;
  folder_id: string | null;
  folder_path: string;
  file_type: string;
  metadata: Record<string, unknown>;
}

/**
 * The `document_upload` and `document_update` triggers, reacting to committed events delivered by
 * the event log's durable publish job (so a change while no worker ran is handled when one
 * starts): `document.processed` starts each matching active workflow once per document (trigger
 * key `upload:<workflow>:<document>`), `document.updated` once per change (`update:<workflow>:<event>`),
 * however often the event is redelivered. A workflow fires only for documents its owner may read:
 * its execution runs as the owner, and its trigger data (name, folder, metadata) must not show
 * a member what is not shared with them.
 */
export class DocumentTrigger {
  readonly #database: Database;
  readonly #repo: WorkflowsRepository;
  readonly #documents: DocumentStore;
  readonly #folders: FolderPaths;
  readonly #executions: ExecutionsService;
  readonly #principals: ActingPrincipals;
  readonly #access: DocumentAccess;
  readonly #logger: Logger;

  constructor(deps: {
    database: Database;
    workflows: WorkflowsRepository;
    documents: DocumentStore;
    folders: FolderPaths;
    executions: ExecutionsService;
    principals: ActingPrincipals;
    access: DocumentAccess;
    logger: Logger;
  }) {
    this.#database = deps.database;
    this.#repo = deps.workflows;
    this.#documents = deps.documents;
    this.#folders = deps.folders;
    this.#executions = deps.executions;
    this.#principals = deps.principals;
    this.#access = deps.access;
    this.#logger = deps.logger;
  }

  async onEvent(event: RecordedEvent): Promise<void> {
    if (event.name === 'document.processed') {
      return this.#fire(
        event,
        'document_upload',
        (facts) => ({ data: { ...facts }, keyOf: (workflowId) => `upload:${workflowId}:${facts.document_id}` }),
        uploadMatches,
      );
    }
    if (event.name === 'document.updated') {
      // Each change fires once (keyed by its event), with the fields it changed.
      const fields = Array.isArray(event.data.fields) ? event.data.fields.map(String) : [];
      return this.#fire(
        event,
        'document_update',
        (facts) => ({
          data: { ...facts, changed_fields: fields },
          keyOf: (workflowId) => `update:${workflowId}:${event.id}`,
        }),
        (conditions, facts) => updateMatches(conditions, facts, fields),
      );
    }
  }

  /** Starts every active workflow of `type` whose conditions the event's document meets, once per key. */
  async #fire(
    event: RecordedEvent<'document.processed' | 'document.updated'>,
    type: 'document_upload' | 'document_update',
    triggerData: (facts: UploadFacts) => { data: Record<string, unknown>; keyOf: (workflowId: string) => string },
    matches: (conditions: Record<string, unknown>, facts: UploadFacts) => boolean,
  ): Promise<void> {
    const db = this.#database.db;
    const workflows = (await this.#repo.activeWorkflows(db, event.tenantId)).filter((w) => w.trigger.type === type);
    if (workflows.length === 0) return;
    const doc = await this.#documents.find(db, event.tenantId, event.data.document_id);
    if (!doc) return;
    const facts: UploadFacts = {
      document_id: doc.id,
      filename: doc.filename,
      folder_id: doc.folderId,
      folder_path: await this.#folders.pathOf(db, event.tenantId, doc.folderId),
      file_type: doc.extension,
      metadata: doc.metadata,
    };
    const { data, keyOf } = triggerData(facts);
    // One check per owner, however many of their workflows match.
    const reads = new Map<string | null, Promise<boolean>>();
    for (const workflow of workflows) {
      if (!matches(workflow.trigger.conditions ?? {}, facts)) continue;
      const owner = principalKey(workflow.owner);
      if (!reads.has(owner)) reads.set(owner, this.#ownerReads(workflow, doc.id));
      if (!(await reads.get(owner))) continue;
      try {
        await db
          .transaction()
          .execute((trx) => this.#executions.startFromTrigger(trx, workflow, type, { ...data }, keyOf(workflow.id)));
      } catch (error) {
        // An invalid definition must not block the other workflows (or retry the event forever).
        this.#logger.warn({ err: error, workflowId: workflow.id }, `${type} trigger could not start the workflow`);
      }
    }
  }

  /** Whether the workflow's owner may read the document now (a disabled or deleted owner reads nothing). */
  async #ownerReads(workflow: Workflow, documentId: string): Promise<boolean> {
    const db = this.#database.db;
    try {
      const owner = await this.#principals.authOf(db, workflow.tenantId, workflow.owner);
      await this.#access.authorize(db, owner, documentId, 'read');
      return true;
    } catch (error) {
      if (error instanceof PrincipalUnavailable || (error instanceof AppError && error.status === 404)) return false;
      throw error;
    }
  }
}

/** `folder_path` is a path prefix (by whole segments), `file_types` extensions, `metadata` equality. Pure. */
export function uploadMatches(conditions: Record<string, unknown>, facts: UploadFacts): boolean {
  const prefix = typeof conditions.folder_path === 'string' ? conditions.folder_path.replace(/\/+$/, '') : '';
  if (prefix !== '' && facts.folder_path !== prefix && !facts.folder_path.startsWith(`${prefix}/`)) return false;
  if (Array.isArray(conditions.file_types) && conditions.file_types.length > 0) {
    const wanted = conditions.file_types.map((t) => String(t).toLowerCase().replace(/^\./, ''));
    if (!wanted.includes(facts.file_type.toLowerCase())) return false;
  }
  const metadata = conditions.metadata;
  if (metadata && typeof metadata === 'object') {
    for (const [key, value] of Object.entries(metadata)) {
      if (JSON.stringify(facts.metadata[key]) !== JSON.stringify(value)) return false;
    }
  }
  return true;
}

/** `document_update`: `folder_path` as for uploads; `fields` (when given) must name one of the changed fields. Pure. */
export function updateMatches(conditions: Record<string, unknown>, facts: UploadFacts, changed: string[]): boolean {
  if (!uploadMatches({ folder_path: conditions.folder_path }, facts)) return false;
  if (!Array.isArray(conditions.fields) || conditions.fields.length === 0) return true;
  return conditions.fields.some((f) => changed.includes(String(f)));
}
