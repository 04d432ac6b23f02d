import type { Database } from '../../db/database.ts';
import type { PlacementResolver } from '../../providers/blobs/tenant-routing-blob-store.ts';
import type { ProviderStores } from './provider-stores.ts';
import type { TenantStorageRepository } from './tenant-storage.repository.ts';

/**
 * The routing blob store's view of a tenant: read on every blob operation (one primary-key
 * lookup), so every process follows a migration's switches as soon as they commit.
 */
export function placementResolver(deps: {
  database: Database;
  tenantStorage: TenantStorageRepository;
  stores: ProviderStores;
}): PlacementResolver {
  return async (tenantId) => {
    const s = await deps.tenantStorage.find(deps.database.db, tenantId);
    if (!s) return null;
    const storeOf = (provider: (typeof s.read)[number]) => deps.stores.storeFor(tenantId, provider, s.customerVersion);
    const [write, ...read] = await Promise.all([storeOf(s.write), ...s.read.map(storeOf)]);
    return { write: write!, read };
  };
}
