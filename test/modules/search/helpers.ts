import assert from 'node:assert/strict';
import { uploadOk } from '../documents/helpers.ts';
import { waitFor } from '../../jobs/helpers.ts';
import type { TestApp } from '../../support/app.ts';

/** A small corpus with distinct vocabularies (diacritics, stems and phrases to search for). */
export const DOCS = {
  invoice:
    'Invoice 2026-0042 from Lumen Analytics GmbH. Consulting services for the quarterly audit of the accounts. Total due 12,500 euros, payable within thirty days to the Zürich account. Invoices are numbered per year.',
  hiking:
    'Trail guide for hiking in the Swiss Alps. The café at the summit serves fondue after a long climb. Hikers should carry water, a map and warm clothing; mountain weather changes quickly above the tree line.',
  recipe:
    'Chocolate cake recipe. Melt the butter with dark chocolate, whisk the eggs with sugar, fold in flour and bake the chocolate cake for forty minutes at 180 degrees. Let the cake cool before icing.',
  contract:
    'Employment contract between Acme Corporation and Jane Doe. The employee receives an annual salary, a notice period of three months applies, and the confidentiality clause survives termination of employment.',
} as const;

/** Uploads a text document and waits until processing and AI are done. */
export async function uploadProcessed(
  t: TestApp,
  headers: Record<string, string>,
  filename: string,
  text: string,
  fields?: Record<string, string | string[]>,
): Promise<string> {
  const id = await uploadOk(t, headers, { filename, content: Buffer.from(text), ...(fields ? { fields } : {}) });
  await waitProcessed(t, id);
  return id;
}

/**
 * Waits until a document is completed with AI finished. Reads the row, not the API: polling through
 * the API would spend a Free tenant's 15 requests a minute before the test's own calls.
 */
export async function waitProcessed(t: TestApp, id: string): Promise<void> {
  await waitFor(
    async () => {
      const doc = await t.container.database.db
        .selectFrom('documents')
        .select(['status', 'ai_status'])
        .where('id', '=', id)
        .executeTakeFirst();
      return doc?.status === 'completed' && !['queued', 'processing'].includes(doc.ai_status);
    },
    `document ${id} processed`,
    60_000,
  );
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
export type Json = any;

/** GET /search with query parameters; asserts 200 unless told otherwise. */
export async function search(
  t: TestApp,
  headers: Record<string, string>,
  params: Record<string, string | number>,
  status = 200,
): Promise<Json> {
  const qs = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
  const res = await t.app.inject({ method: 'GET', url: `/api/v1/search?${qs}`, headers });
  assert.equal(res.statusCode, status, res.body);
  return res.json();
}

export async function post(t: TestApp, headers: Record<string, string>, url: string, payload: object) {
  return t.app.inject({ method: 'POST', url: `/api/v1${url}`, headers, payload });
}

/** The ids of a search answer's documents, in order. */
export function ids(answer: Json): string[] {
  return answer.results.map((r: Json) => r.document.id);
}

/** The tenant's AI credit charges of one reason. */
export async function charges(t: TestApp, tenantId: string, reason?: string): Promise<number> {
  let query = t.container.database.db
    .selectFrom('ai_credit_charges')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId);
  if (reason) query = query.where('reason', '=', reason);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

/** Waits until the process has read its word vectors (`/health`): soft matching does not wait for them. */
export async function waitWordVectors(t: TestApp): Promise<void> {
  await waitFor(
    async () => ((await t.app.inject({ url: '/health' })).json() as Json).capabilities.word_vectors.state === 'ready',
    'word vectors loaded',
    30_000,
  );
}
