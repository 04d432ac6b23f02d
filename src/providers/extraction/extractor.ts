import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { fileTypeRuleForExtension } from '../files/file-types.ts';
import { bufferLimitFor, DEFAULT_MAX_DECODED_MB } from './decode-budget.ts';
import { ExtractionError, formatLabel } from './extraction-error.ts';
import type { Extractor, ExtractorOptions } from './extraction-types.ts';
import { extractAudioTrack, ffmpegWorks, findFfmpeg } from './ffmpeg.ts';
import { chooseOcr } from './ocr-choice.ts';
import { ThreadPool } from './thread-pool.ts';

export { DEFAULT_MAX_DECODED_MB } from './decode-budget.ts';
export { ExtractionError, type ExtractionErrorCode } from './extraction-error.ts';

export type {
  Capabilities,
  ExtractedContent,
  ExtractionInput,
  Extractor,
  ExtractorOptions,
} from './extraction-types.ts';

const MB = 1024 * 1024;

/** Creates an extractor; threads and the OCR engine start on first use and stop when idle. */
export function createExtractor(options: ExtractorOptions = {}): Extractor {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const maxDecodedMb = options.maxDecodedMb ?? DEFAULT_MAX_DECODED_MB;
  const ocrPageTimeoutMs = options.ocrPageTimeoutMs ?? 30_000;
  const ocr = chooseOcr({
    prefer: options.ocrEngine ?? 'auto',
    recycleAfter: options.ocrRecycleAfter,
    pageTimeoutMs: ocrPageTimeoutMs,
    processes: options.ocrProcesses,
  });
  const pool = new ThreadPool({
    threads: options.threads ?? Math.min(4, Math.max(1, availableParallelism() - 1)),
    timeoutMs,
    ocrPageTimeoutMs,
    maxTimeoutMs: options.maxTimeoutMs ?? 20 * 60_000,
    memoryMb: options.memoryMb ?? 512,
    maxDecodedBytes: maxDecodedMb * MB,
    bufferLimitBytes: bufferLimitFor(maxDecodedMb * MB),
    ocr,
  });
  const ffmpegPath = findFfmpeg();
  // Found on the PATH is not enough: it must run. Checked once, in the background.
  let ffmpegRuns: boolean | null = ffmpegPath ? null : false;
  const ffmpegChecked = ffmpegPath ? ffmpegWorks(ffmpegPath).then((ok) => (ffmpegRuns = ok)) : Promise.resolve(false);

  return {
    async extract(input) {
      const extension = input.extension.toLowerCase().replace(/^\./, '');
      const rule = fileTypeRuleForExtension(extension);
      const label = formatLabel(extension);
      if (!rule) throw new ExtractionError('unsupported', `files of type .${extension} cannot be extracted`);
      const size = await stat(input.path).then(
        (s) => s.size,
        (error: NodeJS.ErrnoException) => {
          throw new ExtractionError(
            'unreadable',
            `the file to extract cannot be read (${error.code ?? error.message})`,
            { cause: error },
          );
        },
      );
      if (size > rule.maxBytes) {
        throw new ExtractionError(
          'too_large',
          `the ${label} file is ${Math.ceil(size / 1024 / 1024)} MB, more than the ${rule.maxBytes / 1024 / 1024} MB allowed`,
        );
      }
      if (size === 0 && rule.content !== 'text') throw new ExtractionError('corrupt', `the ${label} file is empty`);
      return pool.run({ path: input.path, extension, mediaType: input.mediaType }, input.signal, input.onProgress);
    },

    async audioTrack(input) {
      const extension = input.extension.toLowerCase().replace(/^\./, '');
      const rule = fileTypeRuleForExtension(extension);
      if (rule?.category === 'audio') return input.path;
      if (rule?.category !== 'video')
        throw new ExtractionError('unsupported', `a .${extension} file has no audio track`);
      if (!ffmpegPath || !(await ffmpegChecked)) return null;
      return extractAudioTrack(ffmpegPath, input.path, extension, { timeoutMs, signal: input.signal });
    },

    capabilities() {
      return {
        ocr: ocr !== null,
        ocrEngine: ocr?.engine() ?? null,
        ffmpeg: ffmpegPath !== null && ffmpegRuns !== false,
      };
    },

    async close() {
      await Promise.all([pool.close(), ocr?.close()]);
    },
  };
}
