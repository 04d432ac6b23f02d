/**
 * The labelled corpus (test/fixtures/corpus) is consistent: every label has its shape and is grounded
 * in its document's text, every question's passage and gold answer are in the document, every query
 * names existing documents, and every document renders and extracts, through the service's real
 * extractor, to text that still holds the passages and entity mentions the labels point at.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import JSZip from 'jszip';
import { createExtractor } from '../../src/providers/extraction/extractor.ts';
import {
  type CorpusDocument,
  DOCUMENT_TYPES,
  DOCUMENTS_DIR,
  FIELD_KINDS,
  FILING_TAGS,
  FIELD_VOCABULARY,
  type FieldValue,
  loadCorpus,
  squash,
  UPLOAD_FORMATS,
} from '../fixtures/corpus/corpus.ts';
import { renderCorpusDocument, ZIP_ENTRY_TIME } from '../fixtures/corpus/render.ts';

const corpus = loadCorpus();
const byId = new Map(corpus.documents.map((d) => [d.id, d]));
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const isIsoDate = (s: string) => ISO_DATE.test(s) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s);

/** Whether `quote` occurs in `text` as whole words ("1 May" is not in "21 May"), whitespace runs as one space. */
function occurs(text: string, quote: string, flags = 'u'): boolean {
  const escaped = squash(quote).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, flags).test(squash(text));
}

/** Problems of one document's labels, as readable lines (empty when it is consistent). */
function labelProblems(doc: CorpusDocument): string[] {
  const problems: string[] = [];
  // Mentions are quoted as written; field values are names and titles, whatever their case in the text.
  const grounded = (what: string, s: string) => {
    if (!occurs(doc.text, s)) problems.push(`${what} ${JSON.stringify(s)} is not in the text`);
  };
  const groundedAnyCase = (what: string, s: string) => {
    if (!occurs(doc.text, s, 'iu')) problems.push(`${what} ${JSON.stringify(s)} is not in the text`);
  };
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(doc.id)) problems.push('id is not kebab-case');
  if (!existsSync(path.join(DOCUMENTS_DIR, doc.source))) problems.push(`source ${doc.source} is missing`);
  if (!(UPLOAD_FORMATS as readonly string[]).includes(doc.format)) problems.push(`format ${doc.format}`);
  if (!['tune', 'holdout'].includes(doc.split)) problems.push(`split ${doc.split}`);
  if (!(DOCUMENT_TYPES as readonly string[]).includes(doc.type)) problems.push(`type ${doc.type}`);
  if (!isIsoDate(doc.referenceDate)) problems.push(`referenceDate ${doc.referenceDate}`);
  if (!/^[a-z]{2}-[A-Z]{2}$/.test(doc.locale)) problems.push(`locale ${doc.locale}`);
  if (!/^[A-Z0-9].*[.!?]$/.test(doc.gist) || doc.gist.length < 40) problems.push('gist is not one sentence');

  for (const kind of ['people', 'organizations', 'places', 'dates'] as const) {
    for (const m of doc.entities[kind]) {
      grounded(kind, m.text);
      if (kind === 'dates' && !isIsoDate(m.value)) problems.push(`date ${m.value} is not ISO`);
      if (kind !== 'dates' && (m.value !== m.value.trim() || /^(mr|mrs|ms|dr|prof)\.? /i.test(m.value)))
        problems.push(`${kind} ${m.value}: untrimmed or titled`);
    }
    const values = doc.entities[kind].map((m) => m.value);
    if (new Set(values).size !== values.length) problems.push(`${kind} has duplicates`);
  }
  for (const a of doc.entities.amounts) {
    grounded('amount', a.text);
    if (!Number.isFinite(a.value) || !/^[A-Z]{3}$/.test(a.currency)) problems.push(`amount ${JSON.stringify(a)}`);
  }
  const amountKeys = doc.entities.amounts.map((a) => `${a.currency} ${a.value}`);
  if (new Set(amountKeys).size !== amountKeys.length) problems.push('amounts has duplicates');

  const vocabulary = FIELD_VOCABULARY[doc.type];
  if (vocabulary) {
    for (const name of vocabulary.required)
      if (!(name in doc.fields)) problems.push(`field ${name} is required for ${doc.type}`);
    for (const [name, value] of Object.entries(doc.fields)) {
      if (![...vocabulary.required, ...vocabulary.optional].includes(name))
        problems.push(`field ${name} is not in the ${doc.type} vocabulary`);
      else problems.push(...fieldProblems(doc, name, value, groundedAnyCase));
    }
  }

  if (doc.tags.length < 3 || doc.tags.length > 8) problems.push(`${doc.tags.length} tags`);
  const names = new Set(
    [...doc.entities.people, ...doc.entities.organizations, ...doc.entities.places].map((m) => m.value.toLowerCase()),
  );
  for (const tag of doc.tags) {
    if (tag !== tag.toLowerCase() || tag !== tag.trim() || tag.length < 3)
      problems.push(`tag ${JSON.stringify(tag)} is not a lower-case phrase`);
    if (names.has(tag)) problems.push(`tag ${tag} is a name`);
  }
  if (new Set(doc.tags).size !== doc.tags.length) problems.push('tags have duplicates');
  if (doc.filingTags.length > 3 || new Set(doc.filingTags).size !== doc.filingTags.length)
    problems.push('0 to 3 distinct filing tags');
  for (const tag of doc.filingTags)
    if (!(FILING_TAGS as readonly string[]).includes(tag)) problems.push(`filing tag ${tag} is not in the list`);
  return problems;
}

function fieldProblems(
  doc: CorpusDocument,
  name: string,
  value: FieldValue,
  grounded: (what: string, s: string) => void,
): string[] {
  const problems: string[] = [];
  const kind = FIELD_KINDS[name];
  if (kind === 'name' || kind === 'text') {
    if (typeof value !== 'string') return [`field ${name} must be a string`];
    grounded(`field ${name}`, value);
  } else if (kind === 'names') {
    if (!Array.isArray(value) || value.length === 0) return [`field ${name} must be a list of names`];
    for (const v of value) grounded(`field ${name}`, v);
  } else if (kind === 'date') {
    if (typeof value !== 'string' || !doc.entities.dates.some((d) => d.value === value))
      problems.push(`field ${name} ${JSON.stringify(value)} is not one of the labelled dates`);
  } else if (kind === 'money') {
    const money = value as { value?: unknown; currency?: unknown };
    if (!doc.entities.amounts.some((a) => a.value === money.value && a.currency === money.currency))
      problems.push(`field ${name} ${JSON.stringify(value)} is not one of the labelled amounts`);
  } else if (kind === 'duration') {
    const duration = value as { value?: unknown; text?: unknown };
    if (
      typeof duration.value !== 'string' ||
      !/^P(\d+[YMWD])+$/.test(duration.value) ||
      typeof duration.text !== 'string'
    )
      problems.push(`field ${name} must be {value: ISO duration, text}`);
    else grounded(`field ${name}`, duration.text);
  } else {
    problems.push(`field ${name} has no kind`);
  }
  return problems;
}

describe('the labelled corpus', () => {
  it('is as large and as varied as issues 27 and 34 ask', () => {
    const count = (key: (d: CorpusDocument) => string) => Map.groupBy(corpus.documents, key);
    assert.ok(corpus.documents.length >= 60, `${corpus.documents.length} documents`);
    assert.ok(
      corpus.documents.filter((d) => d.origin === undefined).length >= 35,
      'at least 35 written for the corpus',
    );
    assert.ok((count((d) => d.format).get('pdf')?.length ?? 0) >= 15, 'at least 15 PDFs');
    assert.ok((count((d) => d.format).get('docx')?.length ?? 0) >= 10, 'at least 10 DOCX');
    const holdout = count((d) => d.split).get('holdout')?.length ?? 0;
    assert.ok(
      holdout >= corpus.documents.length / 4 && holdout <= corpus.documents.length / 2.5,
      `${holdout} held out: about one in three`,
    );
    assert.deepEqual(
      DOCUMENT_TYPES.filter((t) => !count((d) => d.type).has(t)),
      [],
      'every type has a document',
    );
    assert.ok(corpus.questions.length >= 60, `${corpus.questions.length} questions`);
    assert.ok(new Set(corpus.questions.map((q) => q.document)).size >= 40, 'questions are spread over the documents');
    assert.ok(corpus.keywordQueries.length >= 40, `${corpus.keywordQueries.length} keyword queries`);
    // Learned tags need a tag on five documents before they propose it, and a held-out share to measure.
    for (const tag of FILING_TAGS) {
      const on = (split: string) =>
        corpus.documents.filter((d) => d.split === split && d.filingTags.includes(tag)).length;
      assert.ok(
        on('tune') >= 5 && on('holdout') >= 2,
        `filing tag ${tag}: ${on('tune')} tune, ${on('holdout')} holdout documents`,
      );
    }
  });

  it('has unique ids and one source per document', () => {
    assert.equal(byId.size, corpus.documents.length, 'ids are unique');
    assert.equal(
      new Set(corpus.documents.map((d) => d.source)).size,
      corpus.documents.length,
      'one source per document',
    );
  });

  it('labels every document with the right shapes, grounded in its text', () => {
    const problems = corpus.documents.flatMap((doc) => labelProblems(doc).map((p) => `${doc.id}: ${p}`));
    assert.deepEqual(problems, []);
  });

  it('asks questions whose passage is in the document and whose answer is in the passage', () => {
    const kinds = ['when', 'how_much', 'who', 'where', 'how_long', 'what', 'which'];
    const problems: string[] = [];
    for (const q of corpus.questions) {
      const doc = byId.get(q.document);
      if (!doc) {
        problems.push(`${q.question}: no document ${q.document}`);
        continue;
      }
      if (!kinds.includes(q.kind)) problems.push(`${q.question}: kind ${q.kind}`);
      if (!occurs(doc.text, q.passage)) problems.push(`${q.question}: passage not in ${doc.id}`);
      if (
        q.gold.length === 0 ||
        !q.gold.some((g) => squash(q.passage).toLowerCase().includes(squash(g).toLowerCase()))
      ) {
        problems.push(`${q.question}: no gold answer in the passage`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('has keyword queries whose words are in a relevant document', () => {
    const words = (s: string): string[] => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    const problems: string[] = [];
    for (const query of corpus.keywordQueries) {
      if (query.relevant.length === 0) problems.push(`${query.q}: no relevant document`);
      for (const id of query.relevant) {
        const doc = byId.get(id);
        if (!doc) problems.push(`${query.q}: no document ${id}`);
        else if (!words(query.q).every((w) => words(doc.text).includes(w)))
          problems.push(`${query.q}: not all its words are in ${id}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('has paraphrase queries over most documents, each naming documents that exist', () => {
    assert.ok(corpus.paraphraseQueries.length >= 50, `${corpus.paraphraseQueries.length} paraphrase queries`);
    const covered = new Set(corpus.paraphraseQueries.flatMap((q) => q.relevant));
    assert.deepEqual(
      [...covered].filter((id) => !byId.has(id)),
      [],
      'every relevant id is a document',
    );
    assert.ok(covered.size >= 50, `${covered.size} documents have a paraphrase query`);
  });

  it('has one catalogue line per document, of its type, in 10 to 20 words', () => {
    assert.deepEqual(corpus.catalogue.map((c) => c.id).sort(), [...byId.keys()].sort());
    const problems = corpus.catalogue.flatMap((c) => {
      const length = c.description.split(/\s+/).length;
      return [
        ...(c.type === byId.get(c.id)?.type ? [] : [`${c.id}: type ${c.type}`]),
        ...(length >= 10 && length <= 20 ? [] : [`${c.id}: ${length} words`]),
      ];
    });
    assert.deepEqual(problems, []);
  });

  it('renders Office files without the time of rendering in them', async () => {
    for (const format of ['docx', 'pptx', 'xlsx']) {
      const doc = corpus.documents.find((d) => d.format === format);
      assert.ok(doc, `a ${format} document`);
      const zip = await JSZip.loadAsync((await renderCorpusDocument(doc)).bytes);
      const files = Object.values(zip.files).filter((f) => !f.dir);
      assert.deepEqual(
        files.filter((f) => f.date.getTime() !== ZIP_ENTRY_TIME.getTime()).map((f) => f.name),
        [],
        `${format} entry times`,
      );
      const core = await zip.file('docProps/core.xml')?.async('string');
      assert.doesNotMatch(core ?? '', /dcterms:(created|modified)/, `${format} core properties`);
    }
  });

  it('renders every document, and the extractor reads the labelled passages and mentions back', async () => {
    const extractor = createExtractor({ threads: 1 });
    const dir = await mkdtemp(path.join(tmpdir(), 'corpus-test-'));
    const problems: string[] = [];
    try {
      for (const doc of corpus.documents) {
        const rendered = await renderCorpusDocument(doc);
        assert.equal(rendered.filename, `${doc.id}.${doc.format}`);
        assert.ok(
          (await renderCorpusDocument(doc)).bytes.equals(rendered.bytes),
          `${doc.id} renders the same bytes twice`,
        );
        const file = path.join(dir, rendered.filename);
        await writeFile(file, rendered.bytes);
        const content = await extractor.extract({ path: file, extension: doc.format, mediaType: rendered.mimeType });
        // Spreadsheet cells come back tab-separated where the source had commas.
        const flat = (s: string) => (['csv', 'xlsx'].includes(doc.format) ? s.replace(/[\t,"]/g, ' ') : s);
        const expected = [
          ...corpus.questions.filter((q) => q.document === doc.id).map((q) => q.passage),
          ...Object.values(doc.entities).flatMap((list: { text: string }[]) => list.map((m) => m.text)),
        ];
        for (const quote of expected)
          if (!occurs(flat(content.text), flat(quote)))
            problems.push(`${doc.id} (${doc.format}): ${JSON.stringify(quote)} not extracted`);
      }
    } finally {
      await extractor.close();
      await rm(dir, { recursive: true, force: true });
    }
    assert.deepEqual(problems, []);
  });
});
