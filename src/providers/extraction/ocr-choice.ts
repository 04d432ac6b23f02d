import type { OcrEngineName, OcrPreference } from './extraction-types.ts';
import { findTesseract, NativeTesseract, tesseractLanguages } from './native-tesseract.ts';
import { englishLangPath, OcrEngine, type OcrRecognizer, type RecognizeOptions } from './ocr-engine.ts';
import type { GreyImage, OcrResult } from './thread-protocol.ts';

export type { OcrEngineName, OcrPreference } from './extraction-types.ts';

export interface ChosenOcr extends OcrRecognizer {
  /** The engine that reads (or will read) images here; `/health` shows it. */
  engine(): OcrEngineName;
}

/**
 * The OCR engine of this process, or null when none can run (no tesseract on the PATH, no
 * tesseract.js language data). Finding the binary is a file lookup; whether it runs and has English
 * data is checked once in the background (as ffmpeg is), and the first image waits for that check.
 * A binary that fails it leaves tesseract.js in charge.
 */
const NATIVE_BACKSTOP_MS = 60_000;

export function chooseOcr(
  options: {
    prefer?: OcrPreference;
    recycleAfter?: number | undefined;
    pageTimeoutMs?: number;
    /** Native tesseract processes at once (default: two, one on a one-core machine). */
    processes?: number | undefined;
  } = {},
): ChosenOcr | null {
  const prefer = options.prefer ?? 'auto';
  const binary = prefer === 'tesseract.js' ? null : findTesseract();
  const langPath = prefer === 'tesseract' ? null : englishLangPath();
  const wasm = langPath ? new OcrEngine({ langPath, recycleAfter: options.recycleAfter }) : null;
  if (!binary) return wasm ? withName(wasm, 'tesseract.js') : null;

  // The file's deadline (the thread pool's timer, which aborts the page) decides when OCR has taken
  // too long; the process's own limit is only a backstop against a tesseract that ignores the abort,
  // so it never undercuts that deadline with an error of its own.
  const native = new NativeTesseract({
    binary,
    timeoutMs: Math.max((options.pageTimeoutMs ?? 0) * 2, NATIVE_BACKSTOP_MS),
    processes: options.processes,
  });
  let nativeRuns: boolean | null = null;
  const checked = tesseractLanguages(binary).then((languages) => (nativeRuns = languages.includes('eng')));
  const current = (): OcrRecognizer | null => (nativeRuns === false ? wasm : native);
  return {
    engine: () => (nativeRuns === false ? 'tesseract.js' : 'tesseract'),
    async recognize(image: GreyImage, recognizeOptions?: RecognizeOptions): Promise<OcrResult> {
      await checked;
      const engine = current();
      if (!engine) throw new Error('OCR is not available: tesseract has no English data and tesseract.js none either');
      return engine.recognize(image, recognizeOptions);
    },
    parallel: () => current()?.parallel() ?? 1,
    async close() {
      await Promise.all([native.close(), wasm?.close()]);
    },
  };
}

function withName(engine: OcrRecognizer, name: OcrEngineName): ChosenOcr {
  return {
    engine: () => name,
    recognize: (image, options) => engine.recognize(image, options),
    parallel: () => engine.parallel(),
    close: () => engine.close(),
  };
}
