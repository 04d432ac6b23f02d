import { iso } from '../../../lib/clock.ts';
import type { TagRow } from './tags.repository.ts';

/** A tag row as the API shows it. */
export function presentTag(t: TagRow) {
  return { id: t.id, name: t.name, color: t.color, created_at: iso(t.created_at) };
}
