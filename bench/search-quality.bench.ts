/*
 * Retrieval quality of the three search modes on the labelled set in test/fixtures/search
 * (documents uploaded and processed through the real pipeline with the local AI provider):
 * recall@3 (the share of queries whose relevant document is in the top 3) and nDCG@10 (binary
 * gains), for keyword queries and for paraphrases that share few words with their target.
 * Run: npm run bench search-quality
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../test/jobs/helpers.ts';
import { startTestApp } from '../test/support/app.ts';
import { uploadOk } from '../test/documents/helpers.ts';

interface RetrievalSet {
  documents: { id: string; text: string }[];
  queries: { q: string; kind: 'keyword' | 'paraphrase'; relevant: string[] }[];
}

const SET = JSON.parse(
  fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures/search/retrieval-set.json'), 'utf8'),
) as RetrievalSet;

function ndcg(ranked: string[], relevant: string[], k: number): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (relevant.includes(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.length); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}

export async function run() {
  const t = await startTestApp('sqlite', { worker: true });
  try {
    const created = await t.admin({
      method: 'POST',
      url: '/api/v1/admin/tenants',
      payload: { name: 'Quality', subdomain: 'search-quality', tier: 'enterprise', owner: { email: 'q@example.com', password: 'bench password 1', name: 'Q' } },
    });
    const headers = { 'x-api-key': (created.json() as { api_key: string }).api_key };
    const byDocument = new Map<string, string>();
    for (const d of SET.documents) byDocument.set(await uploadOk(t, headers, { filename: `${d.id}.txt`, content: Buffer.from(d.text) }), d.id);
    for (const id of byDocument.keys()) {
      await waitFor(async () => {
        const doc = (await t.app.inject({ url: `/api/v1/documents/${id}`, headers })).json() as { status: string; ai_status: string };
        return doc.status === 'completed' && !['queued', 'processing'].includes(doc.ai_status);
      }, 'processing', 60_000);
    }
    const modes = ['text', 'semantic', 'hybrid'] as const;
    const table: Record<string, Record<string, { recallAt3: number; ndcgAt10: number; queries: number }>> = {};
    for (const kind of ['keyword', 'paraphrase'] as const) {
      table[kind] = {};
      const queries = SET.queries.filter((q) => q.kind === kind);
      for (const mode of modes) {
        let recall = 0;
        let gain = 0;
        for (const query of queries) {
          const res =
            mode === 'hybrid'
              ? await t.app.inject({ method: 'POST', url: '/api/v1/search/hybrid', headers, payload: { query: query.q, limit: 10 } })
              : await t.app.inject({ url: `/api/v1/search?mode=${mode}&limit=10&q=${encodeURIComponent(query.q)}`, headers });
          const ranked = (res.json() as { results: { document: { id: string } }[] }).results.map((r) => byDocument.get(r.document.id)!);
          if (ranked.slice(0, 3).some((id) => query.relevant.includes(id))) recall++;
          gain += ndcg(ranked, query.relevant, 10);
        }
        table[kind]![mode] = { recallAt3: Number((recall / queries.length).toFixed(3)), ndcgAt10: Number((gain / queries.length).toFixed(3)), queries: queries.length };
      }
    }
    return { documents: SET.documents.length, provider: 'local', table };
  } finally {
    await t.close();
  }
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
