import type { ItemStatus } from './imports.tables.ts';

/** Contract §12 progress figures from item counts: done = imported + failed + skipped. */
export function progressPercent(counts: Record<ItemStatus, number>, total: number): number {
  if (total === 0) return 0;
  const done = counts.imported + counts.failed + counts.skipped;
  return Math.round((done / total) * 1000) / 10;
}

/**
 * When the pending files should be done, at the pace of the files finished since the run started;
 * null before the first one (no pace yet) or when nothing is left.
 */
export function estimateCompletion(input: {
  now: number;
  startedAt: number | null;
  finishedSinceStart: number;
  pending: number;
}): number | null {
  const { now, startedAt, finishedSinceStart, pending } = input;
  if (startedAt === null || finishedSinceStart === 0 || pending === 0) return null;
  const perFile = (now - startedAt) / finishedSinceStart;
  return Math.round(now + perFile * pending);
}
