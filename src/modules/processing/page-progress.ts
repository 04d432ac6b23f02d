/** Pages read of total, as extraction reports them. */
export interface Pages {
  done: number;
  total: number;
}

/**
 * Passes extraction's page reports on to a store at most once per `everyMs` (the first and the last
 * page at once; one held back is written when the interval ends, so a long OCR page shows the
 * pages before it), one write at a time and in order. A failed write is the writer's to log: the
 * extraction goes on.
 */
export class PageProgress {
  readonly #write: (pages: Pages) => Promise<void>;
  readonly #now: () => number;
  readonly #everyMs: number;
  #chain: Promise<void> = Promise.resolve();
  #lastAt = Number.NEGATIVE_INFINITY;
  #held: Pages | null = null;
  #timer: NodeJS.Timeout | null = null;

  constructor(write: (pages: Pages) => Promise<void>, now: () => number, everyMs = 1000) {
    this.#write = write;
    this.#now = now;
    this.#everyMs = everyMs;
  }

  /** The extractor's `onProgress`. */
  readonly report = (pages: Pages): void => {
    const wait = this.#lastAt + this.#everyMs - this.#now();
    if (wait <= 0 || pages.done >= pages.total) {
      this.#send(pages);
      return;
    }
    this.#held = pages;
    this.#timer ??= setTimeout(() => {
      this.#timer = null;
      if (this.#held) this.#send(this.#held);
    }, wait);
  };

  /** Stops reporting; resolves once every write started has ended. */
  async settled(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#held = null;
    await this.#chain;
  }

  #send(pages: Pages): void {
    this.#held = null;
    this.#lastAt = this.#now();
    this.#chain = this.#chain.then(() => this.#write(pages)).catch(() => {});
  }
}
