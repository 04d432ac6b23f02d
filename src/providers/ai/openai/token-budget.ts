import { sleep } from './retry.ts';

/**
 * A tokens-per-minute budget shared by every call of one provider: a bucket holding up to a
 * minute's worth of tokens, refilled continuously. A call takes its estimate (characters / 4)
 * before it is sent and waits while the bucket is short; the bucket may go into debt, so calls
 * made together queue behind each other in order. After a call, `settle` books the difference
 * between the estimate and the tokens the endpoint reported.
 */
export class TokenBudget {
  readonly tokensPerMinute: number;
  #available: number;
  #updatedAt: number;
  readonly #now: () => number;

  constructor(tokensPerMinute: number, now: () => number = () => performance.now()) {
    if (!(tokensPerMinute > 0)) throw new Error('tokensPerMinute must be positive');
    this.tokensPerMinute = tokensPerMinute;
    this.#now = now;
    this.#available = tokensPerMinute;
    this.#updatedAt = now();
  }

  /** Waits until `tokens` fit the budget (a call larger than a whole minute waits for a full bucket), then takes them. */
  async take(tokens: number, signal?: AbortSignal): Promise<void> {
    const wait = this.reserve(tokens);
    if (wait > 0) await sleep(wait, signal);
  }

  /** Takes `tokens` now and returns how many milliseconds the caller should wait before using them. */
  reserve(tokens: number): number {
    this.#refill();
    const needed = Math.min(Math.max(0, tokens), this.tokensPerMinute);
    const waitMs = this.#available >= needed ? 0 : ((needed - this.#available) / this.tokensPerMinute) * 60_000;
    this.#available -= Math.max(0, tokens);
    return waitMs;
  }

  /** Books the difference between an estimate and the real count (positive: the call used more). */
  settle(estimated: number, actual: number | null | undefined): void {
    if (typeof actual !== 'number' || !Number.isFinite(actual)) return;
    this.#refill();
    this.#available -= actual - estimated;
  }

  #refill(): void {
    const now = this.#now();
    const elapsed = Math.max(0, now - this.#updatedAt);
    this.#updatedAt = now;
    this.#available = Math.min(this.tokensPerMinute, this.#available + (elapsed / 60_000) * this.tokensPerMinute);
  }
}
