import type { Executor } from '../../db/executor.ts';
import type { Document } from './documents.repository.ts';

/** Why documents are waiting for processing: a new upload, or a reprocess of one already stored. */
export type StoredCause = 'upload' | 'reprocess';

/**
 * Called in the transaction that stored documents (an upload, single or batch) or sent one back
 * to be processed again, with those documents in status `queued`: the processing module starts
 * its pipeline here. All documents of one call belong to one tenant.
 */
export type StoredListener = (trx: Executor, documents: readonly Document[], cause: StoredCause) => Promise<void>;

/**
 * What the documents module announces to modules set up after it, inside its own transactions
 * (unlike events, which reach subscribers after the commit). Documents never names processing:
 * processing subscribes.
 */
export class DocumentHooks {
  readonly #stored: StoredListener[] = [];

  /** Subscribes to documents stored or sent back for processing. */
  onStored(listener: StoredListener): void {
    this.#stored.push(listener);
  }

  /** Runs every `onStored` listener in the caller's transaction. */
  async stored(trx: Executor, documents: readonly Document[], cause: StoredCause): Promise<void> {
    if (documents.length === 0) return;
    for (const listener of this.#stored) await listener(trx, documents, cause);
  }
}
