import { greeting, type MailTemplate, tenantOf } from './template.ts';

/** A finished storage migration, for the administrator who started it. */
export interface MigrationFinishedMail {
  migrationId: string;
  source: string;
  target: string;
  /** `completed` or `completed_with_errors`. */
  status: string;
  migratedFiles: number;
  totalFiles: number;
  failedFiles: number;
}

export const migrationFinished: MailTemplate<MigrationFinishedMail> = {
  category: 'notification',
  render: (d, c) => ({
    subject: `Storage migration ${d.status === 'completed' ? 'completed' : 'completed with errors'}: ${d.source} to ${d.target}`,
    greeting: greeting(c),
    paragraphs: [
      `The storage migration ${d.migrationId} of ${tenantOf(c)} from ${d.source} to ${d.target} finished with status ${d.status}.`,
      ...(d.failedFiles > 0
        ? [
            'Failed files are still served from the source; list them with GET /api/v1/admin/storage/migrations/{migration_id}/failed and retry with POST .../retry.',
          ]
        : []),
      'The source copies are kept for the retention period, then deleted.',
    ],
    details: [
      ['Files migrated', `${d.migratedFiles} of ${d.totalFiles}`],
      ['Failed', String(d.failedFiles)],
    ],
  }),
};
