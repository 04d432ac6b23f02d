import type { ProviderName } from './storage-providers.ts';
import type { TenantStorage } from './tenant-storage.repository.ts';

type Placement = Omit<TenantStorage, 'customerVersion'>;

// How each step of a migration moves a tenant's placement (spec "During a migration"). Reads keep
// every store that may still hold a file, newest first, so a download always finds its bytes.

/**
 * Copy starts: uploads go to the target. Downloads look in the source first: it still holds every
 * file stored before (copied or not, the same bytes), so a download never waits on a miss in the
 * store that is busy receiving the copy; only uploads made since are found in the target.
 */
export function startCopy(s: Placement, target: ProviderName): Placement {
  return { current: s.current, write: target, read: [...s.read, target] };
}

/** Cutover: the target becomes the tenant's provider; the source stays readable until the purge. */
export function cutOver(s: Placement, source: ProviderName, target: ProviderName): Placement {
  return { current: target, write: target, read: [target, source, ...s.read] };
}

/** Cancel: new uploads go back to the source; what reached the target stays readable there. */
export function cancelTo(s: Placement, source: ProviderName, target: ProviderName): Placement {
  return { current: source, write: source, read: [source, target, ...s.read] };
}

/** Source copies purged: only the target remains (plus the source while failed files live there). */
export function afterPurge(s: Placement, source: ProviderName, keepSource: boolean): Placement {
  return { ...s, read: s.read.filter((p) => p !== source || keepSource) };
}
