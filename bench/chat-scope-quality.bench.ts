/*
 * Chat across the tenant against chat on the document, on the labelled corpus
 * (test/fixtures/corpus, questions.json): every document with questions is uploaded into one tenant
 * and processed by the real pipeline (local AI provider); each question is asked twice, in a session
 * on its document and in a tenant session (scope "tenant", all the documents), each a fresh session:
 *   fact:     the answer holds one of the gold strings (case and whitespace ignored);
 *   first:    the first citation is the question's document;
 *   cited:    some citation is the question's document;
 *   retrieved (tenant only): the question's document is among the 8 documents search's semantic
 *             ranking hands the tenant session (GET /search?mode=semantic&limit=8, the same ranking).
 * Figures per split only: no miss is printed (nothing here is tuned on; holdout stays unread).
 * Run: node bench/chat-scope-quality.bench.ts
 */
import { fileURLToPath } from 'node:url';
import { CHAT_SCOPE_DOCUMENTS } from '../src/modules/chat/chat.service.ts';
import { squash } from '../test/fixtures/corpus/corpus.ts';
import { loadCorpus } from '../test/fixtures/corpus/render.ts';
import { startTestApp } from '../test/support/app.ts';
import { corpusTenant } from './chat-quality.bench.ts';

type Scope = 'document' | 'tenant';
interface Outcome {
  split: string;
  scope: Scope;
  fact: boolean;
  first: boolean;
  cited: boolean;
  retrieved: boolean;
}

const lower = (s: string) => squash(s).toLowerCase();
const share = (os: Outcome[], f: (o: Outcome) => boolean) =>
  os.length === 0 ? 0 : Math.round((os.filter(f).length / os.length) * 1000) / 1000;
const figures = (os: Outcome[]) => ({
  questions: os.length,
  fact: share(os, (o) => o.fact),
  first: share(os, (o) => o.first),
  cited: share(os, (o) => o.cited),
  retrieved: share(os, (o) => o.retrieved),
});

export async function run() {
  const corpus = loadCorpus();
  const t = await startTestApp('sqlite', { worker: true });
  try {
    const { headers, documents, uploaded } = await corpusTenant(t, 'Chat scope', corpus);
    const ask = async (target: object, question: string) => {
      const session = (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/chat/sessions',
          headers,
          payload: { ...target, name: 'bench' },
        })
      ).json() as { id: string };
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/v1/chat/sessions/${session.id}/ask`,
        headers,
        payload: { message: question },
      });
      return res.json() as { content: string; citations: { document_id: string }[] };
    };
    const outcomes: Outcome[] = [];
    // CHAT_SCOPE_TUNE_ONLY=1: only the tune split's questions (while trying a change; holdout is measured once after).
    const tuneOnly = process.env['CHAT_SCOPE_TUNE_ONLY'] === '1';
    for (const q of corpus.questions) {
      if (tuneOnly && documents.find((d) => d.id === q.document)!.split !== 'tune') continue;
      const documentId = uploaded.get(q.document)!;
      const split = documents.find((d) => d.id === q.document)!.split;
      const found = await t.app.inject({
        url: `/api/v1/search?${new URLSearchParams({ q: q.question, mode: 'semantic', limit: String(CHAT_SCOPE_DOCUMENTS) })}`,
        headers,
      });
      const retrieved = (found.json() as { results: { document: { id: string } }[] }).results.some(
        (r) => r.document.id === documentId,
      );
      for (const scope of ['document', 'tenant'] as const) {
        const answer = await ask(scope === 'document' ? { document_id: documentId } : { scope: 'tenant' }, q.question);
        outcomes.push({
          split,
          scope,
          fact: q.gold.some((g) => lower(answer.content).includes(lower(g))),
          first: answer.citations[0]?.document_id === documentId,
          cited: answer.citations.some((c) => c.document_id === documentId),
          retrieved: scope === 'document' || retrieved,
        });
      }
    }
    const splits = [...new Set(outcomes.map((o) => o.split))].sort();
    return {
      provider: 'local',
      documents: documents.length,
      ...Object.fromEntries(
        (['document', 'tenant'] as const).map((scope) => [
          scope,
          Object.fromEntries(
            splits.map((split) => [split, figures(outcomes.filter((o) => o.scope === scope && o.split === split))]),
          ),
        ]),
      ),
    };
  } finally {
    await t.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(JSON.stringify(await run(), null, 2));
