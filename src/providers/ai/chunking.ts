import { pageSections, segmentText } from './segmentation.ts';

/** A piece of a document sized for embedding or a model's context. */
export interface TextChunk {
  index: number;
  text: string;
  /** 1-based page the chunk comes from, when pages were given. */
  page: number | null;
  /** Offset of `text` in the chunked text. */
  startOffset: number;
}

export interface ChunkOptions {
  /** The text of each page, in order; `text` is their concatenation (any separator). */
  pages?: string[] | null;
  /** Aimed-for size in approximate tokens (four characters each). Default 200. */
  targetTokens?: number;
  /** How much of the end of a chunk the next one repeats. Default 40. */
  overlapTokens?: number;
}

interface Unit {
  start: number;
  end: number;
}

/**
 * Splits text into overlapping chunks along segment boundaries (sentences, rows, fields:
 * segmentation.ts), so a wrapped clause or a table row is never cut in two. A chunk never spans two
 * pages, so each keeps its page number; a segment longer than the target is cut between words.
 * `text` of a chunk is always `text.slice(startOffset, startOffset + chunk.text.length)`.
 */
export function chunkText(text: string, options: ChunkOptions = {}): TextChunk[] {
  const targetChars = Math.max(1, options.targetTokens ?? 200) * 4;
  const overlapChars = Math.max(0, Math.min(options.overlapTokens ?? 40, (options.targetTokens ?? 200) / 2)) * 4;
  const chunks: TextChunk[] = [];
  const byPage = Map.groupBy(segmentText(text, { pages: options.pages }), (s) => s.page);
  for (const section of pageSections(text, options.pages)) {
    const units = (byPage.get(section.page) ?? []).flatMap((s) => cutLongUnit(text, s.start, s.end, targetChars));
    let first = 0;
    while (first < units.length) {
      let last = first;
      while (last + 1 < units.length && units[last + 1]!.end - units[first]!.start <= targetChars) last++;
      const start = units[first]!.start;
      const end = units[last]!.end;
      chunks.push({ index: chunks.length, text: text.slice(start, end), page: section.page, startOffset: start });
      if (last + 1 >= units.length) break;
      // Step back over whole sentences that fit the overlap, but always move forward.
      let next = last + 1;
      while (next - 1 > first && end - units[next - 1]!.start <= overlapChars) next--;
      first = next;
    }
  }
  return chunks;
}

// A sentence longer than the target, cut between words into target-sized pieces.
function cutLongUnit(text: string, start: number, end: number, targetChars: number): Unit[] {
  if (end - start <= targetChars) return [{ start, end }];
  const units: Unit[] = [];
  let from = start;
  while (end - from > targetChars) {
    let cut = text.lastIndexOf(' ', from + targetChars);
    if (cut <= from) cut = from + targetChars;
    units.push({ start: from, end: cut });
    from = cut;
    while (from < end && text[from] === ' ') from++;
  }
  if (end > from) units.push({ start: from, end });
  return units;
}
