import type { TestApp } from '../support/app.ts';
import { waitFor } from '../jobs/helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
type Json = any;

/** The document once processing and AI are done with it (through the API). */
export function settled(t: TestApp, id: string, headers: Record<string, string>): Promise<Json> {
  return waitFor(
    async () => {
      const res = await t.app.inject({ method: 'GET', url: `/api/v1/documents/${id}`, headers });
      if (res.statusCode !== 200) return undefined;
      const d = res.json();
      return d.status !== 'processing' && d.ai_status !== 'processing' && d.ai_status !== 'queued' ? d : undefined;
    },
    `document ${id} to finish processing`,
    60_000,
  );
}

/** Waits until the tenant's learned-tag model has taken in every tag change so far (no training pending). */
export async function trainingDone(t: TestApp, tenantId: string): Promise<void> {
  const db = t.container.database.db;
  await waitFor(
    async () => {
      const pending = await db
        .selectFrom('jobs')
        .select('id')
        .where('kind', '=', 'processing.learn_tags')
        .where('tenant_id', '=', tenantId)
        .where('state', 'in', ['available', 'running'])
        .executeTakeFirst();
      if (pending) return false;
      const row = await db
        .selectFrom('learned_tag_models')
        .select(['changed_at', 'trained_from'])
        .where('tenant_id', '=', tenantId)
        .executeTakeFirst();
      return row !== undefined && row.trained_from !== null && Number(row.trained_from) >= Number(row.changed_at);
    },
    `the learned tags of tenant ${tenantId} to be trained`,
    60_000,
  );
}

/** The learned tags on a document's detail, by name. */
export function learnedTagsOf(doc: Json): Map<string, number> {
  return new Map(
    doc.ai_tag_details.filter((t: Json) => t.source === 'learned').map((t: Json) => [t.name, t.confidence]),
  );
}
