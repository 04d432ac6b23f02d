import assert from 'node:assert/strict';
import type { TestApp } from '../../support/app.ts';
import { waitFor } from '../../jobs/helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
type Json = any;

/**
 * The document once processing and AI are done with it, as the API shows it. The wait reads the
 * stored row, not the API: polling GET /documents/:id every 20 ms would count against the
 * tenant's per-minute rate limit and turn a slow run (a loaded machine, PostgreSQL) into a 429.
 * The answer is still read through the API, once, and checked to be settled there too.
 */
export async function settled(t: TestApp, id: string, headers: Record<string, string>): Promise<Json> {
  const db = t.container.database.db;
  const done = (d: { status: string; ai_status: string }) =>
    d.status !== 'processing' && d.ai_status !== 'processing' && d.ai_status !== 'queued';
  await waitFor(
    async () => {
      const row = await db
        .selectFrom('documents')
        .select(['status', 'ai_status'])
        .where('id', '=', id)
        .executeTakeFirst();
      return row !== undefined && done(row);
    },
    `document ${id} to finish processing`,
    60_000,
  );
  const res = await t.app.inject({ method: 'GET', url: `/api/v1/documents/${id}`, headers });
  assert.equal(res.statusCode, 200, res.body);
  const d = res.json();
  assert.ok(done(d), `document ${id} settled in the database but not in the API: ${res.body}`);
  return d;
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
