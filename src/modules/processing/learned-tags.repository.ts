import type { Executor } from '../../db/executor.ts';
import { parseJson } from '../../lib/json.ts';
import type { LearnedTagModel, Terms } from './learned-tag-model.ts';
import './learned-tags.tables.ts';

/** A tenant's model row: the model (null before any tag is learnable) and its training marks. */
export interface StoredTagModel {
  model: LearnedTagModel | null;
  changedAt: number;
  trainedFrom: number | null;
  trainedAt: number | null;
}

/** Documents per `IN (...)` list: well under SQLite's bound-parameter limit. */
const IN_BATCH = 500;

/** SQL for the learned-tag terms and models; every query takes the tenant. */
export class LearnedTagsRepository {
  async saveTerms(db: Executor, tenantId: string, documentId: string, terms: Terms, at: number): Promise<void> {
    const values = { tenant_id: tenantId, document_id: documentId, terms: JSON.stringify(terms), updated_at: at };
    await db
      .insertInto('learned_tag_terms')
      .values(values)
      .onConflict((oc) => oc.column('document_id').doUpdateSet({ terms: values.terms, updated_at: at }))
      .execute();
  }

  /** The stored terms of these documents, by document id (documents without any are absent). */
  async termsOf(db: Executor, tenantId: string, documentIds: readonly string[]): Promise<Map<string, Terms>> {
    const out = new Map<string, Terms>();
    for (let i = 0; i < documentIds.length; i += IN_BATCH) {
      const rows = await db
        .selectFrom('learned_tag_terms')
        .select(['document_id', 'terms'])
        .where('tenant_id', '=', tenantId)
        .where('document_id', 'in', documentIds.slice(i, i + IN_BATCH))
        .execute();
      for (const row of rows) out.set(row.document_id, parseJson<Terms>(row.terms, {}));
    }
    return out;
  }

  /** The tenant's most recently enriched documents, newest first. */
  async recentDocuments(db: Executor, tenantId: string, limit: number): Promise<string[]> {
    const rows = await db
      .selectFrom('learned_tag_terms')
      .select('document_id')
      .where('tenant_id', '=', tenantId)
      .orderBy('updated_at', 'desc')
      .orderBy('document_id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => r.document_id);
  }

  /** How many of the tenant's documents were enriched after `since` (counting stops at `atMost`). */
  async enrichedSince(db: Executor, tenantId: string, since: number, atMost: number): Promise<number> {
    const rows = await db
      .selectFrom('learned_tag_terms')
      .select('document_id')
      .where('tenant_id', '=', tenantId)
      .where('updated_at', '>', since)
      .limit(atMost)
      .execute();
    return rows.length;
  }

  async findModel(db: Executor, tenantId: string): Promise<StoredTagModel | null> {
    const row = await db
      .selectFrom('learned_tag_models')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    if (!row) return null;
    return {
      model: parseJson<LearnedTagModel | null>(row.model, null),
      changedAt: Number(row.changed_at),
      trainedFrom: row.trained_from === null ? null : Number(row.trained_from),
      trainedAt: row.trained_at === null ? null : Number(row.trained_at),
    };
  }

  /** When the tenant's model was last trained (null: never, or no row): a cheap check before loading it. */
  async trainedAt(db: Executor, tenantId: string): Promise<number | null> {
    const row = await db
      .selectFrom('learned_tag_models')
      .select('trained_at')
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return row?.trained_at == null ? null : Number(row.trained_at);
  }

  /** Notes a change of the tenant's tagging (the latest wins; an older time never moves it back). */
  async markChanged(db: Executor, tenantId: string, at: number): Promise<void> {
    await db
      .insertInto('learned_tag_models')
      .values({ tenant_id: tenantId, model: null, changed_at: at, trained_from: null, trained_at: null })
      .onConflict((oc) =>
        oc.column('tenant_id').doUpdateSet({ changed_at: at }).where('learned_tag_models.changed_at', '<', at),
      )
      .execute();
  }

  async saveModel(
    db: Executor,
    tenantId: string,
    model: LearnedTagModel | null,
    trainedFrom: number,
    at: number,
  ): Promise<void> {
    await db
      .updateTable('learned_tag_models')
      .set({ model: model === null ? null : JSON.stringify(model), trained_from: trainedFrom, trained_at: at })
      .where('tenant_id', '=', tenantId)
      .execute();
  }

  async deleteForTenant(db: Executor, tenantId: string): Promise<void> {
    await db.deleteFrom('learned_tag_terms').where('tenant_id', '=', tenantId).execute();
    await db.deleteFrom('learned_tag_models').where('tenant_id', '=', tenantId).execute();
  }
}
