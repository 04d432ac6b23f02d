import type { Config } from '../../config/config.ts';
import type { Database } from '../../db/database.ts';
import type { Clock } from '../../lib/clock.ts';
import { ApiKeysService } from '../api-keys/api-keys.service.ts';
import type { ApiKeysRepository } from '../api-keys/api-keys.repository.ts';
import { MailOutboxRepository } from '../mail/mail-outbox.repository.ts';
import type { TenantsRepository } from '../tenants/tenants.repository.ts';
import type { TenantsService } from '../tenants/tenants.service.ts';
import type { UsersRepository } from '../users/users.repository.ts';
import { UsersService } from '../users/users.service.ts';
import { WorkspacesRepository } from '../workspaces/workspaces.repository.ts';
import { WorkspacesService } from '../workspaces/workspaces.service.ts';
import { AuthService } from './auth.service.ts';
import { getOrCreateServerSecret } from './server-secrets.ts';
import { SessionsRepository } from './sessions.repository.ts';
import { SigningKeys } from './signing-keys.ts';
import { AccessTokens, CsrfTokens } from './tokens.ts';
import { UserTokenAuthenticator } from './user-token-authenticator.ts';

/** Identity and access, wired once by the composition root (issue 3). */
export function createIdentity(deps: {
  config: Config;
  database: Database;
  clock: Clock;
  tenants: TenantsRepository;
  users: UsersRepository;
  apiKeys: ApiKeysRepository;
  tenantsService: TenantsService;
}) {
  const { config, database, clock, tenants, users, apiKeys, tenantsService } = deps;
  const publicBaseUrl = config.http.publicBaseUrl;
  const sessions = new SessionsRepository();
  const mail = new MailOutboxRepository();
  const workspaces = new WorkspacesRepository();
  const ttlMs = config.auth.accessTokenTtlSeconds * 1000;
  // A retired key keeps verifying for a token lifetime plus the time other processes take to notice.
  const signingKeys = new SigningKeys({ database, clock, rotationMs: config.auth.signingKeyRotationMs, graceMs: ttlMs + 120_000 });
  const accessTokens = new AccessTokens({ keys: signingKeys, ttlSeconds: config.auth.accessTokenTtlSeconds, now: () => clock.now() });
  let csrfSecret: Promise<Buffer> | null = null;
  const csrf = new CsrfTokens(() => {
    if (config.auth.secret) return Promise.resolve(Buffer.from(config.auth.secret, 'utf8'));
    csrfSecret ??= getOrCreateServerSecret(database.db, 'csrf', clock.now()).catch((error: unknown) => {
      csrfSecret = null;
      throw error;
    });
    return csrfSecret;
  });
  const userTokens = new UserTokenAuthenticator({ database, clock, tenants, sessions, accessTokens, csrf });
  return {
    repositories: { sessions, mail, workspaces },
    services: {
      auth: new AuthService({ database, clock, tenants, tenantsService, users, sessions, mail, accessTokens, csrf, publicBaseUrl }),
      users: new UsersService({ database, clock, users, tenants, sessions, mail, publicBaseUrl }),
      apiKeys: new ApiKeysService({ database, clock, apiKeys, tenants }),
      workspaces: new WorkspacesService({ database, clock, workspaces, users }),
    },
    signingKeys,
    accessTokens,
    userTokens,
  };
}

export type Identity = ReturnType<typeof createIdentity>;
