/** A held slot; call it once the call to the endpoint is over. */
export type Release = () => void;

interface Endpoint {
  inFlight: number;
  waiters: { grant: () => void; timer: NodeJS.Timeout }[];
  /** Moving average of recent call durations (ms); 0 until the first call. */
  typicalMs: number;
}

/** Calls whose endpoint answers faster than this on average may queue for a slot instead of being deferred. */
const FAST_ENDPOINT_MS = 200;
const MAX_WAIT_MS = 1_000;
const EWMA_WEIGHT = 0.2;
const FORGET_IDLE_ABOVE = 10_000;

/**
 * Per-endpoint concurrency in one process: at most `limit` calls to the same webhook at once, so a
 * slow or dead endpoint holds a bounded share of the worker's slots. A call that finds its
 * endpoint full waits briefly only if the endpoint is fast (the slot frees within milliseconds);
 * otherwise the caller defers the delivery and gives its worker slot to other endpoints.
 */
export class EndpointLimiter {
  readonly #endpoints = new Map<string, Endpoint>();

  /** A slot now, or after a short wait for a fast endpoint; null when the caller should defer. */
  acquire(key: string, limit: number): Promise<Release | null> {
    const endpoint = this.#endpoint(key);
    if (endpoint.inFlight < limit) {
      endpoint.inFlight++;
      return Promise.resolve(this.#release(key, endpoint));
    }
    if (!this.isFast(key) || endpoint.waiters.length >= limit) return Promise.resolve(null);
    return new Promise((resolve) => {
      const waiter = {
        grant: () => {
          clearTimeout(waiter.timer);
          resolve(this.#release(key, endpoint));
        },
        timer: setTimeout(() => {
          endpoint.waiters.splice(endpoint.waiters.indexOf(waiter), 1);
          resolve(null);
        }, MAX_WAIT_MS),
      };
      endpoint.waiters.push(waiter);
    });
  }

  /** Records how long a call took, for the fast/slow judgement and deferral delays. */
  observe(key: string, durationMs: number): void {
    const endpoint = this.#endpoint(key);
    endpoint.typicalMs =
      endpoint.typicalMs === 0 ? durationMs : endpoint.typicalMs + EWMA_WEIGHT * (durationMs - endpoint.typicalMs);
  }

  /** Whether the endpoint's recent calls were fast (unknown endpoints are not). */
  isFast(key: string): boolean {
    const typical = this.typicalMs(key);
    return typical > 0 && typical < FAST_ENDPOINT_MS;
  }

  /** Fast, or never called yet from this process and nothing in flight (the next call measures it). */
  isFastOrUntried(key: string): boolean {
    return this.isFast(key) || (this.typicalMs(key) === 0 && this.inFlight(key) === 0);
  }

  typicalMs(key: string): number {
    return this.#endpoints.get(key)?.typicalMs ?? 0;
  }

  /** Calls in flight to an endpoint (tests, metrics). */
  inFlight(key: string): number {
    return this.#endpoints.get(key)?.inFlight ?? 0;
  }

  #endpoint(key: string): Endpoint {
    let endpoint = this.#endpoints.get(key);
    if (!endpoint) {
      if (this.#endpoints.size >= FORGET_IDLE_ABOVE) this.#forgetIdle();
      endpoint = { inFlight: 0, waiters: [], typicalMs: 0 };
      this.#endpoints.set(key, endpoint);
    }
    return endpoint;
  }

  #release(key: string, endpoint: Endpoint): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = endpoint.waiters.shift();
      // The slot passes straight to a waiter, so inFlight stays the same.
      if (next) next.grant();
      else endpoint.inFlight--;
      if (endpoint.inFlight === 0 && this.#endpoints.size >= FORGET_IDLE_ABOVE) this.#endpoints.delete(key);
    };
  }

  #forgetIdle(): void {
    for (const [key, endpoint] of this.#endpoints) if (endpoint.inFlight === 0) this.#endpoints.delete(key);
  }
}
