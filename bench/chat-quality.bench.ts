/*
 * Chat quality on the labelled corpus (test/fixtures/corpus, questions.json): every document with
 * questions is uploaded and processed through the real pipeline (local AI provider), and each
 * single-fact question is asked in a chat session of its own on its document:
 *   fact:     the answer holds one of the gold strings (case and whitespace ignored);
 *   document: the first citation is the question's document;
 *   passage:  a citation holds the gold passage (most of its words, the chunk may cut it);
 *   words:    average words of an answer;
 *   not found: answers saying the document does not hold it.
 * Figures per split of the document; misses are printed for `tune` only (holdout documents are
 * measured, never looked at: test/fixtures/corpus/README.md).
 * Run: npm run bench chat-quality
 */
import { fileURLToPath } from 'node:url';
import { NOT_FOUND_ANSWER } from '../src/providers/ai/local/extractive-answer.ts';
import { type Corpus, squash } from '../test/fixtures/corpus/corpus.ts';
import { loadCorpus, renderCorpusDocument } from '../test/fixtures/corpus/render.ts';
import { uploadOk } from '../test/documents/helpers.ts';
import { waitProcessed } from '../test/search/helpers.ts';
import { startTestApp } from '../test/support/app.ts';

interface Outcome {
  split: string;
  kind: string;
  question: string;
  fact: boolean;
  document: boolean;
  passage: boolean;
  words: number;
  notFound: boolean;
  answer: string;
}

interface Figures {
  questions: number;
  fact: number;
  document: number;
  passage: number;
  avgWords: number;
  notFound: number;
}

const lower = (s: string) => squash(s).toLowerCase();
const wordsOf = (s: string) => lower(s).split(/[^\p{L}\p{N}]+/u).filter(Boolean);

/** Whether a cited chunk holds the gold passage: whole, or 80% of its words (a chunk boundary may cut it). */
function holdsPassage(cited: string, passage: string): boolean {
  if (lower(cited).includes(lower(passage))) return true;
  const have = new Set(wordsOf(cited));
  const want = wordsOf(passage);
  return want.length > 0 && want.filter((w) => have.has(w)).length / want.length >= 0.8;
}

function figures(outcomes: Outcome[]): Figures {
  const n = Math.max(1, outcomes.length);
  const share = (f: (o: Outcome) => boolean) => Number((outcomes.filter(f).length / n).toFixed(3));
  return {
    questions: outcomes.length,
    fact: share((o) => o.fact),
    document: share((o) => o.document),
    passage: share((o) => o.passage),
    avgWords: Number((outcomes.reduce((a, o) => a + o.words, 0) / n).toFixed(1)),
    notFound: share((o) => o.notFound),
  };
}

export async function run(corpus: Corpus = loadCorpus()) {
  const t = await startTestApp('sqlite', { worker: true });
  try {
    const created = await t.admin({
      method: 'POST',
      url: '/api/v1/admin/tenants',
      payload: { name: 'Chat quality', subdomain: 'chat-quality', tier: 'enterprise', owner: { email: 'q@example.com', password: 'bench password 1', name: 'Q' } },
    });
    const headers = { 'x-api-key': (created.json() as { api_key: string }).api_key };
    const asked = new Set(corpus.questions.map((q) => q.document));
    const documents = corpus.documents.filter((d) => asked.has(d.id));
    const uploaded = new Map<string, string>();
    for (const doc of documents) {
      const rendered = await renderCorpusDocument(doc);
      uploaded.set(doc.id, await uploadOk(t, headers, { filename: rendered.filename, content: rendered.bytes }));
    }
    for (const id of uploaded.values()) await waitProcessed(t, id);

    const outcomes: Outcome[] = [];
    for (const q of corpus.questions) {
      const documentId = uploaded.get(q.document)!;
      const session = (await t.app.inject({ method: 'POST', url: '/api/v1/chat/sessions', headers, payload: { document_id: documentId, name: 'bench' } })).json() as { id: string };
      const res = await t.app.inject({ method: 'POST', url: `/api/v1/chat/sessions/${session.id}/ask`, headers, payload: { message: q.question } });
      const answer = res.json() as { content: string; citations: { document_id: string; text: string }[] };
      outcomes.push({
        split: documents.find((d) => d.id === q.document)!.split,
        kind: q.kind,
        question: q.question,
        fact: q.gold.some((g) => lower(answer.content).includes(lower(g))),
        document: answer.citations[0]?.document_id === documentId,
        passage: answer.citations.some((c) => holdsPassage(c.text, q.passage)),
        words: answer.content.split(/\s+/).filter(Boolean).length,
        notFound: answer.content === NOT_FOUND_ANSWER,
        answer: answer.content,
      });
    }

    const tune = outcomes.filter((o) => o.split === 'tune');
    const byKind = Object.fromEntries([...new Set(tune.map((o) => o.kind))].sort().map((kind) => [kind, figures(tune.filter((o) => o.kind === kind))]));
    for (const miss of tune.filter((o) => !o.fact)) process.stderr.write(`tune miss [${miss.kind}] ${miss.question}\n    → ${miss.answer}\n`);
    return {
      provider: 'local',
      documents: documents.length,
      tune: figures(tune),
      holdout: figures(outcomes.filter((o) => o.split === 'holdout')),
      all: figures(outcomes),
      tuneByKind: byKind,
    };
  } finally {
    await t.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(JSON.stringify(await run(), null, 2));
