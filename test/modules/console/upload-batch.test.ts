import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  groupable,
  MAX_BATCH_BYTES,
  MAX_BATCH_FILES,
  MAX_GROUPED_FILE_BYTES,
  nextGroup,
  outcomesOf,
  sharesOf,
} from '../../../src/modules/console/app/upload-batch.ts';
import { sanitizeFilename } from '../../../src/providers/files/filenames.ts';

// The console's grouping of small files into batch uploads (src/modules/console/app/upload-batch.ts).
// The whole flow in a browser is in browser.test.ts; here the rules, with no browser.

const file = (name: string, size = 100) => ({ name, size });
const item = (name: string, folder = 'a', size = 100) => ({ file: file(name, size), folder });
const sameFolder = (a: { folder: string }, b: { folder: string }) => a.folder === b.folder;

describe('console uploads: grouping files into batches', () => {
  it('groups only names the service keeps exactly as sent, so its answer can be matched by name', () => {
    const names = [
      'report.pdf',
      'Café menu.txt',
      'Résumé (final) [2].docx',
      '日本語の文書.txt',
      'a'.repeat(200),
      'Cafe\u0301.txt', // decomposed é: the service stores NFC
      ' padded.txt',
      'zero\u200bwidth.txt',
      'rtl\u202eexe.txt',
      'tab\there.txt',
      'quote".txt', // a browser's form sends %22
      'back\\slash.txt',
      'lone\ud800.txt',
      'a'.repeat(201),
      '',
      '..',
    ];
    for (const name of names) {
      if (groupable(file(name)))
        assert.equal(sanitizeFilename(name), name, `${JSON.stringify(name)} comes back as sent`);
    }
    assert.deepEqual(
      names.filter((n) => groupable(file(n))),
      names.slice(0, 5),
      'the plain names are grouped, every name the service would change goes alone',
    );
    assert.equal(groupable(file('big.pdf', MAX_GROUPED_FILE_BYTES + 1)), false, 'a large file goes alone');
  });

  it('spreads what waits over the lanes: a handful go one a request, many go ten a request', () => {
    const many = Array.from({ length: 200 }, (_, i) => item(`f${i}.txt`));
    assert.equal(nextGroup(many, sameFolder, 6).length, MAX_BATCH_FILES);
    assert.equal(nextGroup(many.slice(0, 5), sameFolder, 6).length, 1, 'five files: five requests in parallel');
    assert.equal(nextGroup(many.slice(0, 20), sameFolder, 6).length, 4, 'twenty files: six requests of four or fewer');
    assert.deepEqual(nextGroup([], sameFolder, 6), []);
  });

  it('keeps a group to one folder, distinct names, groupable files and the byte cap, in the order waiting', () => {
    const waiting = [
      item('a.txt'),
      item('b.txt', 'other'),
      item('a.txt'), // same name as the first: next request
      item('big.pdf', 'a', MAX_GROUPED_FILE_BYTES + 1),
      item('c.txt'),
      ...Array.from({ length: 60 }, (_, i) => item(`n${i}.txt`)),
    ];
    const group = nextGroup(waiting, sameFolder, 6);
    assert.deepEqual(
      group.map((g) => g.file.name),
      ['a.txt', 'c.txt', ...Array.from({ length: 8 }, (_, i) => `n${i}.txt`)],
    );
    assert.deepEqual(
      nextGroup([item('big.pdf', 'a', MAX_GROUPED_FILE_BYTES + 1), item('x.txt')], sameFolder, 1).map(
        (g) => g.file.name,
      ),
      ['big.pdf'],
      'a file that cannot be grouped goes alone',
    );
    const heavy = Array.from({ length: 10 }, (_, i) => item(`h${i}.bin`, 'a', MAX_GROUPED_FILE_BYTES));
    const capped = nextGroup(heavy, sameFolder, 1);
    assert.equal(capped.length, MAX_BATCH_BYTES / MAX_GROUPED_FILE_BYTES, 'a batch stays under its byte cap');
  });

  it("reads each file's outcome from the answer by order and name; a file the answer does not name is unknown", () => {
    const names = ['a.txt', 'tool.exe', 'b.txt', 'huge.txt', 'c.txt'];
    const answer = {
      documents: [
        { id: 'd1', filename: 'a.txt' },
        { id: 'd2', filename: 'b.txt' },
        { id: 'd3', filename: 'c.txt' },
      ],
      rejected: [
        { filename: 'tool.exe', code: 'INVALID_FILE_TYPE', message: 'not accepted' },
        { filename: 'huge.txt', code: 'FILE_TOO_LARGE', message: 'too large' },
      ],
    };
    assert.deepEqual(outcomesOf(names, answer), [
      { stored: answer.documents[0] },
      { refused: answer.rejected[0] },
      { stored: answer.documents[1] },
      { refused: answer.rejected[1] },
      { stored: answer.documents[2] },
    ]);
    assert.deepEqual(outcomesOf(['a.txt', 'x.txt'], { documents: [{ id: 'd1', filename: 'a.txt' }], rejected: [] }), [
      { stored: { id: 'd1', filename: 'a.txt' } },
      { unknown: true },
    ]);
  });

  it("shares a request's progress among its files in body order", () => {
    assert.deepEqual(sharesOf([100, 100, 200], 0, 1000), [0, 0, 0]);
    assert.deepEqual(sharesOf([100, 100, 200], 500, 1000), [1, 1, 0]);
    assert.deepEqual(sharesOf([100, 100, 200], 750, 1000), [1, 1, 0.5]);
    assert.deepEqual(sharesOf([100, 100, 200], 1000, 1000), [1, 1, 1]);
    assert.deepEqual(sharesOf([100], 2000, 1000), [1], 'never past whole');
  });
});
