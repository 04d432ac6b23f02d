import type { Database } from '../../db/database.ts';
import type { Clock } from '../../lib/clock.ts';
import type { CredentialBox } from './credential-box.ts';
import type { DriveSession, DriveSettings } from './drive-client.ts';
import type { ImportProject, ProjectsRepository } from './projects.repository.ts';

/** A Drive session for one project's run, and how to keep an access token it refreshed. */
export interface ProjectDrive {
  session: DriveSession;
  /** Stores the refreshed access token (sealed), when the session refreshed one. */
  saveRefreshed(): Promise<void>;
}

/** Opens Drive sessions with a project's sealed credentials. */
export class DriveAccess {
  private readonly deps: {
    database: Database;
    clock: Clock;
    box: CredentialBox;
    projects: ProjectsRepository;
    settings: DriveSettings;
  };
  constructor(deps: DriveAccess['deps']) {
    this.deps = deps;
  }

  async open(project: ImportProject, signal?: AbortSignal): Promise<ProjectDrive> {
    const { box, database, projects, clock, settings } = this.deps;
    if (!project.sealedCredentials) throw new Error(`import project ${project.id} has no credentials`);
    const credentials = await box.open(project.sealedCredentials);
    let refreshed: string | null = null;
    // The Drive client and Google's auth library (~26 MiB) load with the first import run, not at start.
    const { DriveSession } = await import('./drive-client.ts');
    const session = new DriveSession(settings, credentials, {
      onRefresh: (token) => (refreshed = token),
      ...(signal ? { signal } : {}),
    });
    return {
      session,
      async saveRefreshed() {
        if (refreshed === null) return;
        const sealed = await box.seal({ ...credentials, access_token: refreshed });
        credentials.access_token = refreshed;
        refreshed = null;
        await projects.update(database.db, project.tenantId, project.id, {
          sealedCredentials: sealed,
          updatedAt: clock.now(),
        });
      },
    };
  }
}
