/**
 * Chat answers of the local provider on the labelled corpus and the second chat hold-out set, per
 * split, as floors that guard against regression (docs/benchmarks.md, "Chat answers", has the
 * figures of the full bench, which uploads through the API; this runs the same answer pipeline
 * in-process: each document rendered, extracted by the real extractor, chunked as processing
 * chunks it, passages embedded and ranked as chat ranks them, answered by the local provider).
 * No timing: it fails only when answers get worse.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CHAT_MIN_PASSAGE_SCORE, CHAT_TOP_PASSAGES, rankPassages } from '../../src/modules/chat/passage-ranking.ts';
import { chunkText } from '../../src/providers/ai/chunking.ts';
import { NOT_FOUND_ANSWER } from '../../src/providers/ai/local/extractive-answer.ts';
import { LocalAiProvider } from '../../src/providers/ai/local/local-provider.ts';
import { analyzeQuestion } from '../../src/providers/ai/question.ts';
import { createExtractor } from '../../src/providers/extraction/extractor.ts';
import { loadChatHoldout } from '../fixtures/chat-holdout/chat-holdout.ts';
import { loadCorpus, squash } from '../fixtures/corpus/corpus.ts';
import { renderCorpusDocument } from '../fixtures/corpus/render.ts';

/**
 * Floors per split: the figures measured when they were set (2026-11-28, raised after the sixth pass)
 * less about one question's worth, so a change that loses answers fails and noise (none: the pipeline
 * is deterministic) cannot.
 */
const FLOORS = {
  corpusTune: 0.98,
  corpusHoldout: 0.92,
  secondDev: 0.93,
  secondHoldout: 0.96,
  /** The fresh split of the second set (0.821 after the sixth pass, 0.846 after the eighth, 0.949 after the ninth, which read its misses; 0.974 after the eleventh). */
  secondFresh: 0.94,
  /** The second fresh split (0.76 before the seventh pass, 0.80 after; 0.92 after the ninth, which read its misses; 0.96 after the eleventh). */
  secondFresh2: 0.92,
  /** The third fresh split (0.867 before the eighth pass, 0.90 after; 0.967 after the ninth, which read its misses). */
  secondFresh3: 0.93,
  /** The fourth fresh split (0.662 before the ninth pass, 0.704 after; 0.887 after the tenth, which read its misses; 0.915 after the eleventh, 0.930 after the twelfth). */
  secondFresh4: 0.91,
  /** The fifth fresh split (written before the tenth pass, chat-34c, totals only: 0.684 before it, 0.696 after; development material in the eleventh, chat-34d: 0.747). */
  secondFresh5: 0.74,
  /** The sixth fresh split (written before the eleventh pass, chat-34d, totals only: 0.679 before it, 0.716 after; development material in the twelfth, chat-34e: 0.741). */
  secondFresh6: 0.72,
  /** The seventh fresh split (written before the twelfth pass, chat-34e, totals only: 0.553 before it, 0.600 after). */
  secondFresh7: 0.58,
  /**
   * Questions the document does not answer, answered "not found" (0.714 since the fresh-6 split added 7
   * such questions, 4 of them abstained on main and after the eleventh pass alike), over the splits
   * not held out.
   */
  abstained: 0.7,
  /** Answerable questions answered "not found", over the splits not held out. */
  maxWrongNotFound: 0.15,
};

/** Splits whose misses are never printed: written before the pass that measures them, totals only. */
const HELD_OUT = new Set(['second-fresh-7']);

interface Item {
  document: string;
  format: string;
  text: string;
  split: string;
}

const lower = (s: string) => squash(s).toLowerCase();

describe('chat answers (local provider, corpus and second hold-out set)', () => {
  it('hold the asked fact at least as often as recorded, per split', async () => {
    const corpus = loadCorpus();
    const second = loadChatHoldout();
    const items: Item[] = [
      ...corpus.documents
        .filter((d) => corpus.questions.some((q) => q.document === d.id))
        .map((d) => ({ document: d.id, format: d.format, text: d.text, split: `corpus-${d.split}` })),
      ...second.documents.map((d) => ({
        document: `second:${d.id}`,
        format: d.format,
        text: d.text,
        split: `second-${d.split}`,
      })),
    ];
    const provider = new LocalAiProvider();
    const extractor = createExtractor({ threads: 1 });
    const dir = await mkdtemp(path.join(tmpdir(), 'chat-answers-'));
    const passages = new Map<
      string,
      { index: number; page: number | null; text: string; vector: Float32Array | null }[]
    >();
    try {
      for (const item of items) {
        const id = item.document.replace(/^second:/, '');
        const rendered = await renderCorpusDocument({ id, source: '', format: item.format as 'txt' }, item.text);
        const file = path.join(dir, rendered.filename);
        await writeFile(file, rendered.bytes);
        const content = await extractor.extract({ path: file, extension: item.format, mediaType: rendered.mimeType });
        const chunks = chunkText(content.text, { pages: content.pages });
        const vectors = await provider.embed(chunks.map((c) => c.text));
        passages.set(
          item.document,
          chunks.map((c, index) => ({ index, page: c.page ?? null, text: c.text, vector: vectors[index] ?? null })),
        );
      }
    } finally {
      await extractor.close();
      await rm(dir, { recursive: true, force: true });
    }

    const answer = async (document: string, question: string) => {
      const [vector] = await provider.embed([question]);
      const best = rankPassages(
        { analysis: analyzeQuestion(question), vector: vector ?? null },
        passages.get(document)!,
        {
          top: CHAT_TOP_PASSAGES,
          minScore: CHAT_MIN_PASSAGE_SCORE,
        },
      );
      return (
        await provider.answer(
          question,
          best.map((p) => ({ documentId: document, text: p.text, page: p.page, score: p.score })),
        )
      ).text;
    };
    /**
     * CHAT_MISSES=1 prints the misses of the development splits, never of the split still held out
     * (fresh, fresh-2 and fresh-3 became development material in the chat-34b pass, fresh-4 in chat-34c,
     * fresh-5 in chat-34d, fresh-6 in chat-34e: README.md of the set).
     */
    const showMiss = (split: string, fact: boolean, question: string, gold: string[], text: string) => {
      if (process.env.CHAT_MISSES && !fact && !HELD_OUT.has(split)) {
        console.log(`MISS ${split} | ${question} | gold ${JSON.stringify(gold)} | ${text}`);
      }
    };
    const outcomes: { split: string; fact: boolean; absent: boolean; notFound: boolean }[] = [];
    const splitOf = new Map(items.map((i) => [i.document, i.split]));
    for (const q of corpus.questions) {
      const text = await answer(q.document, q.question);
      outcomes.push({
        split: splitOf.get(q.document)!,
        fact: q.gold.some((g) => lower(text).includes(lower(g))),
        absent: false,
        notFound: text === NOT_FOUND_ANSWER,
      });
      showMiss(splitOf.get(q.document)!, outcomes.at(-1)!.fact, q.question, q.gold, text);
    }
    for (const q of second.questions) {
      const document = `second:${q.document}`;
      const text = await answer(document, q.question);
      const notFound = text === NOT_FOUND_ANSWER;
      const held = (g: string) => lower(text).includes(lower(g));
      const fact = q.absent ? notFound : q.all ? q.gold.every(held) : q.gold.some(held);
      outcomes.push({ split: splitOf.get(document)!, fact, absent: q.absent === true, notFound });
      showMiss(splitOf.get(document)!, fact, q.question, q.gold, text);
    }

    const share = (rows: typeof outcomes, f: (o: (typeof outcomes)[number]) => boolean) =>
      rows.filter(f).length / Math.max(1, rows.length);
    const factOf = (split: string) =>
      share(
        outcomes.filter((o) => o.split === split),
        (o) => o.fact,
      );
    const secondRows = outcomes.filter((o) => o.split.startsWith('second-') && !HELD_OUT.has(o.split));
    const figures = {
      corpusTune: factOf('corpus-tune'),
      corpusHoldout: factOf('corpus-holdout'),
      secondDev: factOf('second-dev'),
      secondHoldout: factOf('second-holdout'),
      secondFresh: factOf('second-fresh'),
      secondFresh2: factOf('second-fresh-2'),
      secondFresh3: factOf('second-fresh-3'),
      secondFresh4: factOf('second-fresh-4'),
      secondFresh5: factOf('second-fresh-5'),
      secondFresh6: factOf('second-fresh-6'),
      abstained: share(
        secondRows.filter((o) => o.absent),
        (o) => o.notFound,
      ),
      wrongNotFound: share(
        outcomes.filter((o) => !o.absent && !HELD_OUT.has(o.split)),
        (o) => o.notFound,
      ),
    };
    // The held-out split's figure is asserted but not printed: it is read once before a pass and once after.
    const heldOutFact = factOf('second-fresh-7');
    process.stderr.write(`chat answers: ${JSON.stringify(figures)}\n`);
    assert.ok(figures.corpusTune >= FLOORS.corpusTune, `corpus tune ${figures.corpusTune}`);
    assert.ok(figures.corpusHoldout >= FLOORS.corpusHoldout, `corpus holdout ${figures.corpusHoldout}`);
    assert.ok(figures.secondDev >= FLOORS.secondDev, `second set dev ${figures.secondDev}`);
    assert.ok(figures.secondHoldout >= FLOORS.secondHoldout, `second set holdout ${figures.secondHoldout}`);
    assert.ok(figures.secondFresh >= FLOORS.secondFresh, `second set fresh ${figures.secondFresh}`);
    assert.ok(figures.secondFresh2 >= FLOORS.secondFresh2, `second set fresh-2 ${figures.secondFresh2}`);
    assert.ok(figures.secondFresh3 >= FLOORS.secondFresh3, `second set fresh-3 ${figures.secondFresh3}`);
    assert.ok(figures.secondFresh4 >= FLOORS.secondFresh4, `second set fresh-4 ${figures.secondFresh4}`);
    assert.ok(figures.secondFresh5 >= FLOORS.secondFresh5, `second set fresh-5 ${figures.secondFresh5}`);
    assert.ok(figures.secondFresh6 >= FLOORS.secondFresh6, `second set fresh-6 ${figures.secondFresh6}`);
    assert.ok(heldOutFact >= FLOORS.secondFresh7, 'second set fresh-7 under its floor');
    assert.ok(figures.abstained >= FLOORS.abstained, `abstained ${figures.abstained}`);
    assert.ok(figures.wrongNotFound <= FLOORS.maxWrongNotFound, `wrong "not found" ${figures.wrongNotFound}`);
  });
});
