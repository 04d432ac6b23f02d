import assert from 'node:assert/strict';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import {
  findTesseract,
  NativeTesseract,
  parseTesseractOutput,
} from '../../../src/providers/extraction/native-tesseract.ts';
import { chooseOcr } from '../../../src/providers/extraction/ocr-choice.ts';
import { bandCut } from '../../../src/providers/extraction/page-bands.ts';
import { textPng } from '../../fixtures/extraction/media.ts';
import { wordRecall } from './helpers.ts';

const LINES = ['Shipment 8812 left the Rotterdam depot on Monday', 'and reached the customer two days later.'];

async function greyImage() {
  const { data, info } = await sharp(textPng(LINES, { width: 1400, height: 260, fontPx: 32 }))
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data) };
}

/** Whether a process with this pid is still there. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('tesseract output', () => {
  it('takes the text as written and the mean confidence of the words (level 5 rows), rounded', () => {
    const header = 'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext';
    const tsv = [
      header,
      '1\t1\t0\t0\t0\t0\t0\t0\t100\t100\t-1\t',
      '5\t1\t1\t1\t1\t1\t0\t0\t10\t10\t90.5\tHello',
      '5\t1\t1\t1\t1\t2\t0\t0\t10\t10\t80\tworld',
      '5\t1\t1\t1\t1\t3\t0\t0\t10\t10\t-1\t',
    ].join('\n');
    assert.deepEqual(parseTesseractOutput('Hello world\n', tsv), { text: 'Hello world\n', confidence: 85 });
    assert.deepEqual(parseTesseractOutput('', header), { text: '', confidence: 0 });
  });
});

describe('choosing the OCR engine', () => {
  let dir: string;
  const path = process.env.PATH;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'docuvault-fake-tesseract-'));
  });
  after(async () => {
    process.env.PATH = path;
    await rm(dir, { recursive: true, force: true });
  });

  /** A `tesseract` on the PATH that is a shell script (`body`), first in the PATH. */
  async function fakeTesseract(body: string) {
    await writeFile(join(dir, 'tesseract'), `#!/bin/sh\n${body}\n`);
    await chmod(join(dir, 'tesseract'), 0o755);
    process.env.PATH = `${dir}${delimiter}${path}`;
  }

  it('uses tesseract.js when the binary has no English data', async () => {
    await fakeTesseract('echo "List of available languages (1):"; echo osd');
    const ocr = chooseOcr();
    try {
      assert.equal(ocr?.engine(), 'tesseract');
      const result = await ocr!.recognize(await greyImage());
      assert.equal(ocr?.engine(), 'tesseract.js');
      assert.ok(wordRecall(LINES.join(' '), result.text) >= 0.9, result.text);
    } finally {
      await ocr?.close();
    }
  });

  it('uses tesseract.js when asked, whatever is on the PATH', async () => {
    await fakeTesseract('echo eng');
    const ocr = chooseOcr({ prefer: 'tesseract.js' });
    assert.equal(ocr?.engine(), 'tesseract.js');
    await ocr?.close();
  });

  it('without a binary, `tesseract` alone means no OCR', async () => {
    process.env.PATH = '/nonexistent';
    assert.equal(findTesseract(), null);
    assert.equal(chooseOcr({ prefer: 'tesseract' }), null);
    process.env.PATH = path;
  });

  it('kills a recognition that is aborted, or outlives its time', async () => {
    await fakeTesseract(`echo $$ > "${join(dir, 'pid')}"; exec sleep 60`);
    const binary = join(dir, 'tesseract');
    const readPid = async () => Number((await readFile(join(dir, 'pid'), 'utf8')).trim());

    const engine = new NativeTesseract({ binary });
    const control = new AbortController();
    const image = await greyImage();
    let aborted: Error | undefined;
    engine.recognize(image, { signal: control.signal }).catch((e: Error) => (aborted = e));
    await waitFor(async () => (await readPid().catch(() => 0)) > 0);
    const pid = await readPid();
    assert.ok(alive(pid));
    control.abort();
    await waitFor(() => aborted !== undefined && !alive(pid));
    assert.match(aborted!.message, /aborted/);
    await engine.close();

    await rm(join(dir, 'pid'));
    const slow = new NativeTesseract({ binary, timeoutMs: 300 });
    await assert.rejects(slow.recognize(await greyImage()), /took longer than/);
    await waitFor(async () => !alive(await readPid()));
    await slow.close();
  });

  it('reads up to `processes` images at once, started in the order asked, each answer to its own image', async () => {
    // Each fake run marks its start, waits for "go", then answers with the line it read from its image.
    const started = join(dir, 'started');
    await rm(started, { recursive: true, force: true });
    await rm(join(dir, 'go'), { force: true });
    await fakeTesseract(
      [
        `mkdir -p "${started}"; head -c 40 > "${started}/$$"`,
        `while [ ! -e "${join(dir, 'go')}" ]; do sleep 0.02; done`,
        `tail -c 1 "${started}/$$" > "$2.txt"; printf 'level\\n' > "$2.tsv"`,
      ].join('\n'),
    );
    const engine = new NativeTesseract({ binary: join(dir, 'tesseract'), processes: 2 });
    try {
      assert.equal(engine.parallel(), 2);
      // 1x1 images whose one grey byte names them (the PGM's last byte).
      const image = (byte: number) => ({ width: 1, height: 1, data: new Uint8Array([byte]) });
      const answers = [65, 66, 67].map((b) => engine.recognize(image(b)));
      const count = () => readdir(started).catch(() => [] as string[]);
      await waitFor(async () => (await count()).length === 2);
      assert.equal(engine.processesStarted, 2, 'the third image waits for a free process');
      await writeFile(join(dir, 'go'), '');
      const texts = (await Promise.all(answers)).map((r) => r.text);
      assert.deepEqual(texts, ['A', 'B', 'C']);
      assert.equal(engine.processesStarted, 3);
    } finally {
      await engine.close();
    }
  });

  it('reads a tall page as two bands at once when both processes are free, else whole', async () => {
    // Each fake run answers with the height of its image (the PGM header's second line) and a
    // confidence of a tenth of it; a 1-row image waits for "go", to keep a process busy.
    await rm(join(dir, 'go'), { force: true });
    await fakeTesseract(
      [
        'read magic; read w h',
        `if [ "$h" -lt 10 ]; then while [ ! -e "${join(dir, 'go')}" ]; do sleep 0.02; done; fi`,
        'echo "rows $h" > "$2.txt"',
        `printf 'level\\n5\\t1\\t1\\t1\\t1\\t1\\t0\\t0\\t1\\t1\\t%s\\trows\\n' $((h / 10)) > "$2.tsv"`,
      ].join('\n'),
    );
    const engine = new NativeTesseract({ binary: join(dir, 'tesseract'), processes: 2 });
    try {
      // Lines of 20 inky rows and 20-row gaps from row 100 to row 1100.
      const tall = { width: 300, height: 1200, data: new Uint8Array(300 * 1200).fill(255) };
      for (let y = 100; y < 1100; y++) if ((y - 100) % 40 < 20) tall.data.fill(0, y * 300, (y + 1) * 300);
      const cut = bandCut(tall)!;
      const both = await engine.recognize(tall);
      assert.equal(both.text, `rows ${cut}\nrows ${1200 - cut}\n`);
      assert.equal(both.confidence, Math.round((Math.floor(cut / 10) + Math.floor((1200 - cut) / 10)) / 2));
      assert.equal(engine.processesStarted, 2);

      const busy = engine.recognize({ width: 1, height: 1, data: new Uint8Array([0]) });
      await waitFor(() => engine.processesStarted === 3);
      const whole = engine.recognize(tall);
      await writeFile(join(dir, 'go'), '');
      assert.equal((await whole).text, 'rows 1200\n');
      assert.equal((await busy).text, 'rows 1\n');
      assert.equal(engine.processesStarted, 4);
    } finally {
      await engine.close();
    }
  });

  it('a band that fails fails the page, and stops the other band', async () => {
    const tall = { width: 300, height: 1200, data: new Uint8Array(300 * 1200).fill(255) };
    for (let y = 0; y < 1200; y++) if (y % 40 < 20) tall.data.fill(0, y * 300, (y + 1) * 300);
    const cut = bandCut(tall)!;
    // The bottom band fails at once; the top one would sleep a minute: the engine closes quickly only if it is killed.
    await fakeTesseract(
      [
        `echo $$ >> "${join(dir, 'pids')}"; read magic; read w h`,
        `if [ "$h" -ne ${cut} ]; then echo broken >&2; exit 3; fi`,
        'exec sleep 60',
      ].join('\n'),
    );
    await rm(join(dir, 'pids'), { force: true });
    const engine = new NativeTesseract({ binary: join(dir, 'tesseract'), processes: 2 });
    try {
      await assert.rejects(engine.recognize(tall), /exit 3\)?: broken/);
      assert.equal(engine.processesStarted, 2);
      const pids = (await readFile(join(dir, 'pids'), 'utf8')).trim().split('\n').map(Number);
      await waitFor(() => pids.every((pid) => !alive(pid)));
    } finally {
      await engine.close();
    }
  });

  it('kills a recognition that holds more memory than allowed', async () => {
    // A process of more than 1 MB resident: the shell running sleep is ~1-3 MB, so allow none.
    await fakeTesseract('exec sleep 60');
    const engine = new NativeTesseract({ binary: join(dir, 'tesseract'), memoryMb: 0 });
    await assert.rejects(engine.recognize(await greyImage()), /more than 0 MB/);
    await engine.close();
  });
});

describe('the system tesseract', { skip: findTesseract() ? false : 'no tesseract on the PATH' }, () => {
  it('reads an image with the same answer shape as tesseract.js', async () => {
    const engine = new NativeTesseract({ binary: findTesseract()! });
    try {
      const result = await engine.recognize(await greyImage());
      assert.ok(wordRecall(LINES.join(' '), result.text) >= 0.9, result.text);
      assert.ok(result.confidence > 50 && result.confidence <= 100, String(result.confidence));
      assert.ok(!result.text.includes('\f'), 'no page separator');
      assert.deepEqual(Object.keys(result).sort(), ['confidence', 'text']);
      assert.equal(engine.processesStarted, 1);
    } finally {
      await engine.close();
    }
  });

  it('is what auto chooses', async () => {
    const ocr = chooseOcr();
    try {
      await ocr!.recognize(await greyImage());
      assert.equal(ocr!.engine(), 'tesseract');
    } finally {
      await ocr?.close();
    }
  });
});

async function waitFor(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail('the condition did not hold within 5 s');
}
