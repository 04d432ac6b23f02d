import type { ApiCaller } from './api-caller.ts';

/** A view's contents: the folder shown (null: the root) and the documents page's query. */
export interface SavedViewInput {
  name: string;
  folder_id?: string | null;
  filters?: Record<string, string>;
}

/**
 * Saved views of the documents page (docs/console.md "Saved views"): the caller's own, by name.
 * Another person's view is a `NotFoundError`; a name taken among the caller's views a `ConflictError`.
 */
export class SavedViewsApi {
  readonly #client: ApiCaller;

  constructor(client: ApiCaller) {
    this.#client = client;
  }

  create(view: SavedViewInput) {
    return this.#client.call('createSavedView', { body: view });
  }

  /** One page of the caller's views, A to Z. */
  list(query: { page?: number; page_size?: number } = {}) {
    return this.#client.call('listSavedViews', { query });
  }

  get(id: string) {
    return this.#client.call('getSavedView', { path: { id } });
  }

  /** Renames or changes a view: what is given changes (`filters` replaced whole). */
  update(id: string, changes: Partial<SavedViewInput>) {
    return this.#client.call('updateSavedView', { path: { id }, body: changes });
  }

  delete(id: string) {
    return this.#client.call('deleteSavedView', { path: { id } });
  }
}
