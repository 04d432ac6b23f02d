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
 * Then the second hold-out set (test/fixtures/chat-holdout): other kinds of documents, questions as
 * users phrase them (yes/no, lists, across two documents) and questions the document does not answer,
 * where the right answer is the not-found answer. Its `dev` documents' misses are printed, its
 * `holdout` and `fresh…` ones are measured only (README.md of the set says which were read since):
 *   fact:     the answer holds a gold string (all of them for lists), or says not found when it should;
 *   answered: fact over the questions the document answers; abstained: share of the others said not found;
 *   wrong not found: share of answerable questions answered "not found".
 * Run: npm run bench chat-quality
 */
import { fileURLToPath } from 'node:url';
import { NOT_FOUND_ANSWER } from '../src/providers/ai/local/extractive-answer.ts';
import { type ChatHoldout, type HoldoutQuestion, loadChatHoldout } from '../test/fixtures/chat-holdout/chat-holdout.ts';
import { type Corpus, squash } from '../test/fixtures/corpus/corpus.ts';
import { loadCorpus, renderCorpusDocument } from '../test/fixtures/corpus/render.ts';
import { uploadOk } from '../test/modules/documents/helpers.ts';
import { waitProcessed } from '../test/modules/search/helpers.ts';
import { startTestApp, type TestApp } from '../test/support/app.ts';

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
const wordsOf = (s: string) =>
  lower(s)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

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

interface HoldoutOutcome {
  split: string;
  kind: string;
  question: string;
  absent: boolean;
  fact: boolean;
  document: boolean;
  words: number;
  notFound: boolean;
  answer: string;
}

/** Whether an answer holds the gold of a hold-out question (see the header). */
function holdsGold(q: HoldoutQuestion, answer: string, notFound: boolean): boolean {
  if (q.absent) return notFound;
  const held = (g: string) => lower(answer).includes(lower(g));
  return q.all ? q.gold.every(held) : q.gold.some(held);
}

function holdoutFigures(outcomes: HoldoutOutcome[]) {
  const share = (rows: HoldoutOutcome[], f: (o: HoldoutOutcome) => boolean) =>
    Number((rows.filter(f).length / Math.max(1, rows.length)).toFixed(3));
  const answerable = outcomes.filter((o) => !o.absent);
  const absent = outcomes.filter((o) => o.absent);
  return {
    questions: outcomes.length,
    fact: share(outcomes, (o) => o.fact),
    answered: share(answerable, (o) => o.fact),
    document: share(answerable, (o) => o.document),
    avgWords: Number((answerable.reduce((a, o) => a + o.words, 0) / Math.max(1, answerable.length)).toFixed(1)),
    abstained: share(absent, (o) => o.notFound),
    wrongNotFound: share(answerable, (o) => o.notFound),
  };
}

/**
 * A tenant holding every corpus document a question asks about (uploaded and processed), for the
 * chat benches: its API key header, those documents, and the service's id of each.
 */
export async function corpusTenant(
  t: TestApp,
  name: string,
  corpus: Corpus,
): Promise<{ headers: Record<string, string>; documents: Corpus['documents']; uploaded: Map<string, string> }> {
  const created = await t.admin({
    method: 'POST',
    url: '/api/v1/admin/tenants',
    payload: {
      name,
      subdomain: name.toLowerCase().replaceAll(' ', '-'),
      tier: 'enterprise',
      owner: { email: 'q@example.com', password: 'bench password 1', name: 'Q' },
    },
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
  return { headers, documents, uploaded };
}

export async function run(corpus: Corpus = loadCorpus(), second: ChatHoldout = loadChatHoldout()) {
  const t = await startTestApp('sqlite', { worker: true });
  try {
    const { headers, documents, uploaded } = await corpusTenant(t, 'Chat quality', corpus);
    for (const doc of second.documents) {
      const rendered = await renderCorpusDocument(doc, doc.text);
      uploaded.set(
        `second:${doc.id}`,
        await uploadOk(t, headers, { filename: rendered.filename, content: rendered.bytes }),
      );
    }
    for (const id of uploaded.values()) await waitProcessed(t, id);
    const askMs: number[] = [];
    const ask = async (documentId: string, question: string) => {
      const session = (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/chat/sessions',
          headers,
          payload: { document_id: documentId, name: 'bench' },
        })
      ).json() as { id: string };
      const started = performance.now();
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/v1/chat/sessions/${session.id}/ask`,
        headers,
        payload: { message: question },
      });
      askMs.push(Math.round((performance.now() - started) * 10) / 10);
      return res.json() as { content: string; citations: { document_id: string; text: string }[] };
    };

    const outcomes: Outcome[] = [];
    for (const q of corpus.questions) {
      const documentId = uploaded.get(q.document)!;
      const answer = await ask(documentId, q.question);
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

    const secondOutcomes: HoldoutOutcome[] = [];
    for (const q of second.questions) {
      const documentId = uploaded.get(`second:${q.document}`)!;
      const answer = await ask(documentId, q.question);
      const notFound = answer.content === NOT_FOUND_ANSWER;
      secondOutcomes.push({
        split: second.documents.find((d) => d.id === q.document)!.split,
        kind: q.kind,
        question: q.question,
        absent: q.absent === true,
        fact: holdsGold(q, answer.content, notFound),
        document: answer.citations[0]?.document_id === documentId,
        words: answer.content.split(/\s+/).filter(Boolean).length,
        notFound,
        answer: answer.content,
      });
    }

    const tune = outcomes.filter((o) => o.split === 'tune');
    const byKind = Object.fromEntries(
      [...new Set(tune.map((o) => o.kind))].sort().map((kind) => [kind, figures(tune.filter((o) => o.kind === kind))]),
    );
    for (const miss of tune.filter((o) => !o.fact))
      process.stderr.write(`tune miss [${miss.kind}] ${miss.question}\n    → ${miss.answer}\n`);
    const dev = secondOutcomes.filter((o) => o.split === 'dev');
    for (const miss of dev.filter((o) => !o.fact))
      process.stderr.write(`dev miss [${miss.kind}] ${miss.question}\n    → ${miss.answer}\n`);
    const secondHoldout = secondOutcomes.filter((o) => o.split === 'holdout');
    const fresh = secondOutcomes.filter((o) => o.split === 'fresh');
    const fresh2 = secondOutcomes.filter((o) => o.split === 'fresh-2');
    const fresh3 = secondOutcomes.filter((o) => o.split === 'fresh-3');
    const fresh4 = secondOutcomes.filter((o) => o.split === 'fresh-4');
    const fresh5 = secondOutcomes.filter((o) => o.split === 'fresh-5');
    const fresh6 = secondOutcomes.filter((o) => o.split === 'fresh-6');
    const fresh7 = secondOutcomes.filter((o) => o.split === 'fresh-7');
    const sorted = [...askMs].sort((a, b) => a - b);
    return {
      provider: 'local',
      documents: documents.length,
      tune: figures(tune),
      holdout: figures(outcomes.filter((o) => o.split === 'holdout')),
      all: figures(outcomes),
      tuneByKind: byKind,
      /** Time of one ask through the API (median and p90 over every question, ms). */
      askMs: { median: sorted[Math.floor(sorted.length / 2)] ?? 0, p90: sorted[Math.floor(sorted.length * 0.9)] ?? 0 },
      second: {
        documents: second.documents.length,
        dev: holdoutFigures(dev),
        holdout: holdoutFigures(secondHoldout),
        fresh: holdoutFigures(fresh),
        'fresh-2': holdoutFigures(fresh2),
        'fresh-3': holdoutFigures(fresh3),
        'fresh-4': holdoutFigures(fresh4),
        'fresh-5': holdoutFigures(fresh5),
        'fresh-6': holdoutFigures(fresh6),
        'fresh-7': holdoutFigures(fresh7),
        all: holdoutFigures(secondOutcomes),
        holdoutByKind: Object.fromEntries(
          [...new Set(secondHoldout.map((o) => o.kind))]
            .sort()
            .map((kind) => [kind, holdoutFigures(secondHoldout.filter((o) => o.kind === kind)).fact]),
        ),
      },
    };
  } finally {
    await t.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // CHAT_BENCH_SECOND_ONLY=1: only the second hold-out set (a quicker run while working on it).
  const only = process.env['CHAT_BENCH_SECOND_ONLY'] === '1';
  const corpus = loadCorpus();
  console.log(JSON.stringify(await run(only ? { ...corpus, documents: [], questions: [] } : corpus), null, 2));
}
