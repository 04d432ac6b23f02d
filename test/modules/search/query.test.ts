import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { highlightDocument, highlightPassage, markupFromSentinels } from '../../../src/modules/search/highlight.ts';
import { parseQuery, toFts5, toTsquery } from '../../../src/modules/search/query-syntax.ts';
import { understandQuery } from '../../../src/modules/search/query-understanding.ts';
import { keywordScore, relevanceOf } from '../../../src/modules/search/scores.ts';

describe('search query syntax', () => {
  it('parses words, phrases, prefixes; folds case and diacritics; drops stop words', () => {
    assert.deepEqual(parseQuery('The Café "quarterly  audit" consult* of'), [
      { kind: 'word', text: 'cafe' },
      { kind: 'phrase', words: ['quarterly', 'audit'] },
      { kind: 'prefix', text: 'consult' },
    ]);
    assert.deepEqual(parseQuery('the of'), [
      { kind: 'word', text: 'the' },
      { kind: 'word', text: 'of' },
    ]);
    assert.deepEqual(parseQuery('e-mail'), [{ kind: 'phrase', words: ['e', 'mail'] }]);
    assert.deepEqual(parseQuery('a* "'), [{ kind: 'word', text: 'a' }]);
    assert.deepEqual(parseQuery('*** ((( '), []);
  });

  it('writes only quoted tokens into FTS5 and tsquery syntax', () => {
    const clauses = parseQuery('invoice OR NEAR(x) "a b" pre* col:umn \'; drop');
    const fts = toFts5(clauses);
    assert.equal(fts, '"invoice" AND "near x" AND "a b" AND "pre"* AND "col umn" AND "drop"');
    assert.equal(toTsquery(parseQuery('pay* "net amount"'), 'any'), "'pay':* | ('net' <-> 'amount')");
  });
});

describe('search scores', () => {
  it('saturates ranks into [0, 1) and bands them as the spec says', () => {
    assert.equal(keywordScore(5, 5), 0.5);
    assert.equal(keywordScore(0, 5), 0);
    assert.ok(keywordScore(1e9, 5) < 1);
    assert.deepEqual([0.95, 0.8, 0.7, 0.6, 0.5, 0.4, 0.39, 0].map(relevanceOf), [
      'high',
      'high',
      'medium',
      'medium',
      'low',
      'low',
      'very_low',
      'very_low',
    ]);
  });
});

describe('highlights', () => {
  it('escapes the text and keeps only <mark> as markup', () => {
    assert.equal(markupFromSentinels('a <b>&\u0001x\u0002 "q"'), 'a &lt;b&gt;&amp;<mark>x</mark> &quot;q&quot;');
    assert.match(
      highlightPassage('Invoices are paid <fast> by the finance team.', 'invoice finance'),
      /<mark>Invoices<\/mark> are paid &lt;fast&gt; by the <mark>finance<\/mark> team\./,
    );
  });

  it('a document: stemmed terms and prefixes marked, the window with the most distinct terms, escaped', () => {
    assert.equal(
      highlightDocument('The <b>Invoices</b> of Zürich & "consulting", e-mail.', parseQuery('invoice consult* zurich')),
      'The <mark>&lt;b&gt;Invoices&lt;/b&gt;</mark> of <mark>Zürich</mark> &amp; <mark>&quot;consulting&quot;,</mark> e-mail.',
    );
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
    // Two mentions of one term early, both terms together later: the later window wins.
    const text = `budget budget ${filler(40)} budget review ${filler(40)}`;
    const marked = highlightDocument(text, parseQuery('budget review'));
    assert.match(marked, /^….*<mark>budget<\/mark> <mark>review<\/mark>.*…$/);
    assert.equal(marked.split(' ').length, 32);
    assert.equal(highlightDocument(`nothing here ${filler(40)}`, parseQuery('budget')).split(' ').length, 32);
    assert.doesNotMatch(highlightDocument(`nothing here ${filler(40)}`, parseQuery('budget')), /<mark>|^…/);
  });
});

describe('query understanding', () => {
  const now = Date.UTC(2026, 10, 23);
  it('reads dates, file types and tag names, and searches the rest', () => {
    const u = understandQuery('Finance invoices from March 2026 as PDF files', { now, tagNames: ['finance', 'legal'] });
    assert.equal(u.text, 'invoices as');
    assert.equal(u.createdFrom, Date.UTC(2026, 2, 1));
    assert.equal(u.createdTo, Date.UTC(2026, 3, 1) - 1);
    assert.deepEqual(u.fileTypes, ['pdf']);
    assert.deepEqual(u.tagNames, ['finance']);
    assert.deepEqual(
      u.understood.map((f) => f.type),
      ['date_range', 'file_type', 'tag'],
    );
    const year = understandQuery('contracts in 2025', { now, tagNames: [] });
    assert.equal(year.createdFrom, Date.UTC(2025, 0, 1));
    assert.equal(year.createdTo, Date.UTC(2026, 0, 1) - 1);
    assert.equal(year.text, 'contracts');
    const sheets = understandQuery('budget spreadsheets since 2024', { now, tagNames: [] });
    assert.ok(sheets.fileTypes?.includes('xlsx') && sheets.fileTypes.includes('csv'));
    assert.equal(sheets.createdFrom, Date.UTC(2024, 0, 1));
    assert.equal(sheets.createdTo, undefined);
    const nothing = understandQuery('pdf', { now, tagNames: [] });
    assert.equal(nothing.text, 'pdf', 'a query that is only a filter is still searched as written');
  });
});
