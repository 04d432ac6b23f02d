import { iso } from '../../../lib/clock.ts';
import type { Tag } from './tags.repository.ts';

/** A tag as the API shows it. */
export function presentTag(t: Tag) {
  return { id: t.id, name: t.name, color: t.color, created_at: iso(t.createdAt) };
}
