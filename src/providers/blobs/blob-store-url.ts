import { fileURLToPath } from 'node:url';
import type { BlobStoreConfig } from './create-blob-store.ts';

/** Defaults of an S3 store named by URL (the service's own S3 settings). */
export interface S3UrlDefaults {
  endpoint: string | null;
  region: string;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  forcePathStyle: boolean;
}

/**
 * Reads a store URL with `{tenant_id}` filled in: `file:///srv/docuvault/tenants/{tenant_id}` is
 * a folder; `s3://bucket/prefix/{tenant_id}` a bucket and key prefix, with optional query
 * `endpoint`, `region` and `force_path_style` overriding the defaults (DEDICATED_STORAGE_URL).
 */
export function blobStoreConfigFromUrl(template: string, tenantId: string, defaults: S3UrlDefaults): BlobStoreConfig {
  const url = new URL(template.replaceAll('{tenant_id}', encodeURIComponent(tenantId)));
  if (url.protocol === 'file:') return { driver: 'local', root: fileURLToPath(url) };
  if (url.protocol !== 's3:' || !url.hostname) throw new Error(`unsupported store URL ${JSON.stringify(template)}`);
  const q = url.searchParams;
  const forcePathStyle = q.get('force_path_style');
  return {
    driver: 's3',
    bucket: url.hostname,
    prefix: decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, ''),
    endpoint: q.get('endpoint') ?? defaults.endpoint,
    region: q.get('region') ?? defaults.region,
    accessKeyId: defaults.accessKeyId,
    secretAccessKey: defaults.secretAccessKey,
    forcePathStyle: forcePathStyle === null ? defaults.forcePathStyle : forcePathStyle === 'true',
  };
}
