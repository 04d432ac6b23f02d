import type { RecurringTick } from '../../jobs/job-types.ts';
import type { RecurringJob } from '../../jobs/recurring.ts';
import type { BlobStore } from './blob-store.ts';
import { LocalBlobStore } from './local-blob-store.ts';

/** The local store's recurring clean-up. */
declare module '../../jobs/job-types.ts' {
  interface JobPayloads {
    'blobs.sweep_temp': RecurringTick;
  }
}

/** Temp files older than this can only be left by a process that died mid-upload. */
const ABANDONED_AFTER_MS = 6 * 60 * 60 * 1000;

/**
 * The local store's hourly clean-up of temp files a crash left behind (S3 has bucket lifecycle
 * rules for abandoned multipart uploads instead). None for other stores.
 */
export function blobMaintenanceJobs(blobs: BlobStore): RecurringJob[] {
  if (!(blobs instanceof LocalBlobStore)) return [];
  return [
    {
      kind: 'blobs.sweep_temp',
      everyMs: 60 * 60 * 1000,
      run: async () => {
        await blobs.sweepTemp(ABANDONED_AFTER_MS);
      },
    },
  ];
}
