/**
 * Runs `work` over `items` with at most `limit` at a time, in order of start; stops taking new
 * items once `stop()` answers true (checked before each item).
 */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
  stop: () => boolean | Promise<boolean> = () => false,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length && !(await stop())) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
}

/** At most `limit` callers inside `run` at a time; the others wait their turn (first come, first served). */
export class Semaphore {
  readonly #waiting: (() => void)[] = [];
  #free: number;

  constructor(limit: number) {
    this.#free = limit;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free -= 1;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free += 1;
    }
  }
}
