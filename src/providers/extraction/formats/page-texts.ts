import type { OcrResult } from '../thread-protocol.ts';

/**
 * The texts of a document's pages, kept in page order while the OCR of up to `depth` pages runs
 * and the reader prepares the next one (renders a PDF page, decodes a TIFF page): with an engine
 * that reads two images at once, a scan's pages overlap instead of waiting for each other. With
 * `depth` 1 every OCR'd page is awaited before the next is prepared, as a single-image engine needs.
 *
 * `sink` receives each page's text in order and answers false once the document's text is full:
 * from then on `more` is false and the reader stops.
 */
export class PageTexts {
  readonly #depth: number;
  readonly #sink: (text: string) => boolean;
  readonly #pages: Array<string | Promise<OcrResult>> = [];
  #flushed = 0;
  #pending = 0;
  #full = false;
  readonly texts: string[] = [];
  ocrPages = 0;
  confidence = 0;

  constructor(depth: number, sink: (text: string) => boolean) {
    this.#depth = Math.max(1, depth);
    this.#sink = sink;
  }

  /** Whether the reader should go on to the next page. */
  get more(): boolean {
    return !this.#full;
  }

  /** A page whose text is known. */
  async text(text: string): Promise<void> {
    this.#pages.push(text);
    await this.#drain(this.#depth);
  }

  /** A page whose text its OCR will give; returns once fewer than `depth` recognitions are in flight. */
  async ocr(recognition: Promise<OcrResult>): Promise<void> {
    // A failure is met when its page's turn comes (below), never as an unhandled rejection before.
    recognition.catch(() => {});
    this.#pages.push(recognition);
    this.#pending++;
    await this.#drain(this.#depth - 1);
  }

  /** Waits for the pages still being read; their texts in page order. */
  async finish(): Promise<string[]> {
    await this.#drain(0);
    return this.texts;
  }

  /** Hands finished pages to the sink in order, awaiting the oldest recognitions until at most `inFlight` remain. */
  async #drain(inFlight: number): Promise<void> {
    while (this.#flushed < this.#pages.length && !this.#full) {
      const page = this.#pages[this.#flushed] as string | Promise<OcrResult>;
      let text: string;
      if (typeof page === 'string') {
        text = page;
      } else {
        if (this.#pending <= inFlight) return;
        const result = await page;
        this.#pending--;
        this.ocrPages++;
        this.confidence += result.confidence;
        text = result.text;
      }
      this.#flushed++;
      this.texts.push(text);
      if (!this.#sink(text)) this.#full = true;
    }
  }
}
