/**
 * Group commit for one kind of statement: calls made while a batch is running wait for it and then
 * run together as the next batch, so N concurrent calls cost a few round trips instead of N.
 * An idle caller waits only until the current event-loop turn ends (calls made in the same turn
 * share the batch). A batch that fails rejects each of its calls with the error.
 */
export class BatchedCalls<I, O> {
  readonly #run: (inputs: I[]) => Promise<O[]>;
  readonly #maxBatch: number;
  #queue: { input: I; resolve: (output: O) => void; reject: (error: unknown) => void }[] = [];
  #running = false;

  /** `run` answers one output per input, in order. */
  constructor(run: (inputs: I[]) => Promise<O[]>, options: { maxBatch: number }) {
    this.#run = run;
    this.#maxBatch = options.maxBatch;
  }

  call(input: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ input, resolve, reject });
      if (this.#running) return;
      this.#running = true;
      setImmediate(() => void this.#drain());
    });
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#maxBatch);
      try {
        const outputs = await this.#run(batch.map((c) => c.input));
        for (const [i, c] of batch.entries()) c.resolve(outputs[i]!);
      } catch (error) {
        for (const c of batch) c.reject(error);
      }
    }
    this.#running = false;
  }
}
