/**
 * A synthetic corpus for the search benchmarks: documents of ~300 words drawn from a Zipf
 * distribution (s = 1) over a 50,000-word vocabulary whose 60 most frequent words are English stop
 * words and the rest made-up words; two-word queries drawn Zipf from the content words (so common
 * words — the hard case for keyword top-k — come up as often as they would in real queries).
 */

export const STOP =
  'the of and to a in is that for it as was with be by on not he i this are or his from at which but have an they you were her she there one all we their has been if more when will would who so no'.split(
    ' ',
  );

/** A small seeded generator (xorshift32), so every run sees the same corpus. */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ren',
  'tas',
  'vo',
  'pel',
  'dri',
  'sun',
  'bar',
  'kel',
  'mon',
  'ta',
  'ri',
  'zen',
  'qua',
  'fi',
  'gor',
  'lun',
  'sel',
  'tor',
  'vin',
  'ash',
  'el',
  'or',
];

export function vocabulary(size: number, random: () => number): string[] {
  const seen = new Set<string>(STOP);
  const out = [...STOP];
  while (out.length < size) {
    let w = '';
    const n = 2 + Math.floor(random() * 3);
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    if (!seen.has(w)) {
      seen.add(w);
      out.push(w);
    }
  }
  return out;
}

/** Draws ranks 0..n-1 with probability ∝ 1 / (rank + 1)^s. */
export function zipf(n: number, s: number, random: () => number): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    sum += 1 / (i + 1) ** s;
    cdf[i] = sum;
  }
  return () => {
    const x = random() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** The corpus generator: `document()` gives ~300 words in sentences; `query()` two content words. */
export function corpus(seed = 42) {
  const random = rng(seed);
  const words = vocabulary(50_000, random);
  const draw = zipf(words.length, 1, random);
  const queryRandom = rng(seed + 1);
  const drawContent = zipf(words.length - STOP.length, 1, queryRandom);
  return {
    words,
    document(): string {
      const out: string[] = [];
      const length = 270 + Math.floor(random() * 60);
      for (let i = 0; i < length; i++) {
        const w = words[draw()]!;
        out.push(i % 12 === 0 ? w[0]!.toUpperCase() + w.slice(1) : w);
        if (i % 12 === 11) out[out.length - 1] += '.';
      }
      return `${out.join(' ')}.`;
    },
    query(): string {
      return `${words[STOP.length + drawContent()]} ${words[STOP.length + drawContent()]}`;
    },
  };
}

/**
 * The i-th query made only of stop words (one or two of `STOP`, `would` in every third): the
 * database ranks these (the in-memory index leaves stop words out); on PostgreSQL only the few
 * that `english_stem` keeps (`would`) match anything.
 */
export function stopWordQuery(i: number): string {
  const first = i % 3 === 0 ? 'would' : STOP[i % STOP.length]!;
  return i % 2 === 0 ? first : `${first} ${STOP[(i * 7 + 3) % STOP.length]}`;
}

/** A random unit vector (the benchmark's stand-in for passage embeddings). */
export function randomUnitVector(dims: number, random: () => number): Float32Array {
  const v = new Float32Array(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    const x = random() * 2 - 1;
    v[i] = x;
    norm += x * x;
  }
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < dims; i++) v[i]! *= scale;
  return v;
}
