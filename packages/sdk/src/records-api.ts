import type { ApiCaller } from './api-caller.ts';

/**
 * Legal holds and retention rules (docs/records.md), for owners, admins and API keys. A deletion
 * under a hold fails with `ConflictError` whose `code` is `LEGAL_HOLD` and whose `details` name
 * the hold (`hold_id`, `hold_name`).
 */
export class RecordsApi {
  readonly #client: ApiCaller;

  constructor(client: ApiCaller) {
    this.#client = client;
  }

  /** Places a hold on documents and folders (a folder: everything below it, also what is added later). */
  placeHold(name: string, targets: { documentIds?: string[]; folderIds?: string[] }) {
    return this.#client.call('createLegalHold', {
      body: {
        name,
        ...(targets.documentIds ? { document_ids: targets.documentIds } : {}),
        ...(targets.folderIds ? { folder_ids: targets.folderIds } : {}),
      },
    });
  }

  /** One page of holds, newest first. */
  listHolds(query: { status?: 'active' | 'released'; page?: number; page_size?: number } = {}) {
    return this.#client.call('listLegalHolds', { query });
  }

  getHold(id: string) {
    return this.#client.call('getLegalHold', { path: { id } });
  }

  /** Releases a hold; its record stays, `status: released`. */
  releaseHold(id: string) {
    return this.#client.call('deleteLegalHold', { path: { id } });
  }

  /** Creates a retention rule for a folder and everything below it. */
  createRule(rule: {
    folder_id: string;
    keep_days: number;
    basis: 'created' | 'last_version';
    action: 'delete' | 'review';
  }) {
    return this.#client.call('createRetentionRule', { body: rule });
  }

  listRules(query: { page?: number; page_size?: number } = {}) {
    return this.#client.call('listRetentionRules', { query });
  }

  /** A rule with its last run's progress. */
  getRule(id: string) {
    return this.#client.call('getRetentionRule', { path: { id } });
  }

  /** Queues a run of the rule now (202). */
  runRule(id: string) {
    return this.#client.call('runRetentionRule', { path: { id } });
  }

  deleteRule(id: string) {
    return this.#client.call('deleteRetentionRule', { path: { id } });
  }
}
