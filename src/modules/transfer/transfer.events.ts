/** The events the transfer module emits (docs/webhooks.md), with their data. */
declare module '../../events/event-catalogue.ts' {
  interface EventDataMap {
    /** A tenant export finished: its archive can be downloaded until `expires_at`. */
    'tenant.export.completed': { export_id: string; status: 'completed' | 'failed'; size: number | null; sha256: string | null; expires_at: string | null; error: string | null };
  }
}

export {};
