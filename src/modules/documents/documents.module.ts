import type { Database } from '../../db/database.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { JobDefinition } from '../../jobs/job-types.ts';
import type { Clock } from '../../lib/clock.ts';
import type { BlobStore } from '../../providers/blobs/blob-store.ts';
import { BatchJobsRepository } from '../batch-jobs/batch-jobs.repository.ts';
import { BatchJobsService } from '../batch-jobs/batch-jobs.service.ts';
import { FoldersRepository } from '../folders/folders.repository.ts';
import { FoldersService } from '../folders/folders.service.ts';
import { SharesRepository } from '../shares/shares.repository.ts';
import { SharesService } from '../shares/shares.service.ts';
import { TagsRepository } from '../tags/tags.repository.ts';
import { TagsService } from '../tags/tags.service.ts';
import { DocumentUploadsService } from './document-uploads.service.ts';
import { documentJobDefinitions } from './documents.jobs.ts';
import { DocumentsRepository } from './documents.repository.ts';
import { DocumentsService } from './documents.service.ts';
import { UploadQuota } from './upload-quota.ts';

/** Folders, documents, tags, shares and batch jobs, wired once for the composition root. */
export function createDocumentsModule(deps: { database: Database; clock: Clock; jobs: JobQueue; blobs: BlobStore }) {
  const { database, clock, jobs, blobs } = deps;
  const repositories = {
    folders: new FoldersRepository(),
    documents: new DocumentsRepository(),
    tags: new TagsRepository(),
    shares: new SharesRepository(),
    batchJobs: new BatchJobsRepository(),
  };
  const tagsService = new TagsService({ database, clock, tags: repositories.tags });
  const quota = new UploadQuota({ database, documents: repositories.documents });
  const services = {
    folders: new FoldersService({ database, clock, jobs, folders: repositories.folders, documents: repositories.documents }),
    tags: tagsService,
    documents: new DocumentsService({ database, clock, jobs, blobs, ...repositories, tagsService }),
    uploads: new DocumentUploadsService({ database, clock, jobs, blobs, ...repositories, tagsService, quota }),
    shares: new SharesService({ database, clock, shares: repositories.shares }),
    batchJobs: new BatchJobsService({ database, batchJobs: repositories.batchJobs }),
  };
  const jobDefinitions: JobDefinition[] = documentJobDefinitions({ database, clock, blobs, documents: repositories.documents });
  return { repositories, services, jobDefinitions };
}

export type DocumentsModule = ReturnType<typeof createDocumentsModule>;
