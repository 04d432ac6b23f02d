import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createExtractor, type Extractor } from '../../../src/providers/extraction/extractor.ts';
import { wav } from '../../fixtures/extraction/media.ts';
import { extractionFixture, fixtureDir, rejectsWith } from './helpers.ts';

describe('audio and video', () => {
  const t = extractionFixture();

  it('WAV: duration, codec and sample rate; marked for transcription; no text', async () => {
    const input = await t.files.write('tone.wav', wav(1.5, 22050, 2));
    const content = await t.extractor.extract(input);
    assert.equal(content.text, '');
    assert.equal(content.pages, null);
    assert.deepEqual(content.media, { kind: 'audio' });
    assert.equal(content.metadata.duration_seconds, 1.5);
    assert.equal(content.metadata.sample_rate, 22050);
    assert.equal(content.metadata.channels, 2);
    assert.equal(content.metadata.codec, 'PCM');
  });

  it('audioTrack answers the path itself for audio', async () => {
    const input = await t.files.write('voice.wav', wav(0.2));
    assert.equal(await t.extractor.audioTrack(input), input.path);
  });
});

describe('video audio tracks through ffmpeg', () => {
  let bin: string;
  let files: Awaited<ReturnType<typeof fixtureDir>>;
  const originalPath = process.env.PATH;
  before(async () => {
    bin = await mkdtemp(join(tmpdir(), 'fake-ffmpeg-'));
    files = await fixtureDir();
  });
  after(async () => {
    process.env.PATH = originalPath;
    await rm(bin, { recursive: true, force: true });
    await files.cleanup();
  });

  /**
   * A folder holding `script` as ffmpeg (nothing when null). Every fake is written before any
   * extractor exists: an extractor checks its ffmpeg in a child process, and a child forked while
   * another script is still open for writing holds that file open too, so running that script then
   * fails with ETXTBSY ("text file busy") — a failure of the test, not of the code under test.
   */
  async function fakeFfmpeg(script: string | null): Promise<string> {
    const dir = await mkdtemp(join(bin, 'path-'));
    if (script !== null) {
      await writeFile(join(dir, 'ffmpeg'), script);
      await chmod(join(dir, 'ffmpeg'), 0o755);
    }
    return dir;
  }

  /** An extractor that finds only the ffmpeg of `dir`. */
  function extractorWith(dir: string): Extractor {
    process.env.PATH = dir;
    try {
      return createExtractor({ threads: 1, timeoutMs: 2_000 });
    } finally {
      process.env.PATH = originalPath;
    }
  }

  async function withFfmpeg(script: string | null): Promise<Extractor> {
    return extractorWith(await fakeFfmpeg(script));
  }

  it('reports no ffmpeg and answers null when it is not on the PATH', async () => {
    const extractor = await withFfmpeg(null);
    try {
      assert.equal(extractor.capabilities().ffmpeg, false);
      assert.equal(await extractor.audioTrack(await files.write('clip.mp4', 'not read')), null);
    } finally {
      await extractor.close();
    }
  });

  it('runs ffmpeg -i in -vn -ac 1 -ar 16000 -f wav out.wav and answers the temp file', async () => {
    // Stands in for ffmpeg: answers -version, records its arguments and writes the last one.
    const extractor = await withFfmpeg(
      `#!/bin/sh\n[ "$1" = "-version" ] && exit 0\necho "$@" > "${bin}/args"\nfor last; do :; done\nprintf 'RIFFwav' > "$last"\n`,
    );
    try {
      assert.equal(extractor.capabilities().ffmpeg, true);
      const input = await files.write('clip.mov', 'video bytes');
      const track = await extractor.audioTrack(input);
      assert.ok(track);
      try {
        assert.equal(await readFile(track, 'utf8'), 'RIFFwav');
        const args = (await readFile(join(bin, 'args'), 'utf8')).trim();
        assert.ok(args.includes(`-i ${input.path} -vn -ac 1 -ar 16000 -f wav ${track}`), args);
      } finally {
        await rm(track, { force: true });
      }
    } finally {
      await extractor.close();
    }
  });

  it('a video without audio, a failing ffmpeg and a hung ffmpeg give clear errors and leave no temp file', async () => {
    const dirs = [
      await fakeFfmpeg(
        `#!/bin/sh\n[ "$1" = "-version" ] && exit 0\necho "Output file #0 does not contain any stream" >&2\nexit 1\n`,
      ),
      await fakeFfmpeg(`#!/bin/sh\n[ "$1" = "-version" ] && exit 0\necho "moov atom not found" >&2\nexit 1\n`),
      await fakeFfmpeg(`#!/bin/sh\n[ "$1" = "-version" ] && exit 0\nexec sleep 30\n`),
    ];
    const [noAudio, broken, hung] = dirs.map(extractorWith) as [Extractor, Extractor, Extractor];
    try {
      const input = await files.write('clip.mp4', 'video bytes');
      await rejectsWith(noAudio.audioTrack(input), 'unsupported', /the MP4 file has no audio track/);
      await rejectsWith(
        broken.audioTrack(input),
        'corrupt',
        /the MP4 file is corrupt or truncated: ffmpeg failed: moov atom not found/,
      );
      await rejectsWith(hung.audioTrack(input), 'timeout', /took longer than 2 s/);
      await assert.rejects(stat(join(tmpdir(), 'never')));
    } finally {
      await Promise.all([noAudio.close(), broken.close(), hung.close()]);
    }
  });
});
