import type { TenantDirectory } from '../../domain/tenant.ts';
import type { Authenticators } from '../../http/authenticate.ts';
import { defineModule } from '../../platform/module.ts';
import { apiKeyRoutes } from './api-keys/api-keys.routes.ts';
import { ApiKeysRepository } from './api-keys/api-keys.repository.ts';
import { ApiKeysService } from './api-keys/api-keys.service.ts';
import { ApiKeyAuthenticator } from './auth/api-key-authenticator.ts';
import { IdentityCache } from './auth/identity-cache.ts';
import { authRoutes } from './auth/auth.routes.ts';
import { AuthService } from './auth/auth.service.ts';
import { getOrCreateServerSecret } from '../../db/server-secrets.ts';
import { SessionsRepository } from './auth/sessions.repository.ts';
import { SignInLimits } from './auth/sign-in-limits.ts';
import { SigningKeys } from './auth/signing-keys.ts';
import { AccessTokens, CsrfTokens } from './auth/tokens.ts';
import { UserTokenAuthenticator } from './auth/user-token-authenticator.ts';
import { MemberDirectory } from './members/member-directory.ts';
import { adminTenantRoutes } from './tenants/admin-tenants.routes.ts';
import { tenantSettingsRoutes } from './tenants/tenant-settings.routes.ts';
import { TenantsRepository } from './tenants/tenants.repository.ts';
import { TenantsService } from './tenants/tenants.service.ts';
import { UsersRepository } from './users/users.repository.ts';
import { userRoutes } from './users/users.routes.ts';
import { UsersService } from './users/users.service.ts';
import { WorkspacesRepository } from './workspaces/workspaces.repository.ts';
import { workspaceRoutes } from './workspaces/workspaces.routes.ts';
import { WorkspacesService } from './workspaces/workspaces.service.ts';

export type { Membership, MemberSelector, MemberDirectory } from './members/member-directory.ts';
export type { TenantUsageSource } from './tenants/tenants.service.ts';
// Query fragments for modules that must compose identity's tables into one query of their own.
export { mailRecipientOf, userNameOf } from './users/users.repository.ts';
export { workspaceIdsOfUser, workspaceNameOf } from './workspaces/workspaces.repository.ts';

/** Notices of administrative tenant changes, for per-process caches (CORS origins). */
export interface TenantChanges {
  subscribe(listener: (tenantId: string) => void): void;
}

declare module '../../platform/module.ts' {
  interface ModuleServices {
    tenants: TenantsService;
    tenantDirectory: TenantDirectory;
    tenantChanges: TenantChanges;
    authenticators: Omit<Authenticators, 'adminApiKey'>;
    auth: AuthService;
    users: UsersService;
    apiKeys: ApiKeysService;
    workspaces: WorkspacesService;
    /** Who a tenant's people are (existence, roles and workspaces, e-mail addresses), for sharing and assigning work. */
    members: MemberDirectory;
  }
}

declare module '../../platform/test-seams.ts' {
  interface TestSeams {
    /** Token signing keys (tests rotate them and forge tokens with them). */
    signingKeys: SigningKeys;
    /** The per-process credential cache's counters (docs/identity-and-access.md). */
    credentialCache: { stats(): { entries: number; hits: number; misses: number; live: boolean } };
  }
}

/**
 * Identity and access: tenants and their administration, sign-in and tokens, users and roles,
 * API keys and workspaces (docs/identity-and-access.md); its mail goes through the mail module.
 *
 * Database triggers of its tables (src/db/schema.sqlite.sql, src/db/schema.postgres.sql,
 * `owner: identity`): `*_identity_change` / `*_identity_delete` log credential changes to
 * identity_changes (which evicts cached credentials in every process), and
 * `document_visibility_member_*` / `document_visibility_user*` keep documents' visibility rows in step.
 */
export const identityModule = defineModule({
  name: 'identity',
  setup({ config, database, clock, logger, metrics, rateLimitStore, use }) {
    const tenants = new TenantsRepository();
    const users = new UsersRepository();
    const apiKeys = new ApiKeysRepository();
    const sessions = new SessionsRepository();
    const mail = use('mail');
    const workspaces = new WorkspacesRepository();

    // Who a credential is, cached per process; every process drops what changed within a second.
    const identityCache = new IdentityCache({ database, logger });
    const identityChanged = (tags: string[]) => identityCache.committed(tags);

    const listeners: ((tenantId: string) => void)[] = [];
    const tenantChanged = (tenantId: string) => {
      for (const listener of listeners) listener(tenantId);
    };
    // Tenant changes made by other processes reach the per-process caches (CORS origins) too.
    identityCache.onChange((tags) => {
      for (const tag of tags) if (tag.startsWith('t:')) tenantChanged(tag.slice(2));
    });
    const tenantsService = new TenantsService({
      database,
      clock,
      tenants,
      users,
      apiKeys,
      onTenantChanged: tenantChanged,
      identityChanged,
    });

    const ttlMs = config.auth.accessTokenTtlSeconds * 1000;
    // A retired key keeps verifying for a token lifetime plus the time other processes take to notice.
    const signingKeys = new SigningKeys({
      database,
      clock,
      rotationMs: config.auth.signingKeyRotationMs,
      graceMs: ttlMs + 120_000,
    });
    const accessTokens = new AccessTokens({
      keys: signingKeys,
      ttlSeconds: config.auth.accessTokenTtlSeconds,
      now: () => clock.now(),
    });
    let csrfSecret: Promise<Buffer> | null = null;
    const csrf = new CsrfTokens(() => {
      if (config.auth.secret) return Promise.resolve(Buffer.from(config.auth.secret, 'utf8'));
      csrfSecret ??= getOrCreateServerSecret(database.db, 'csrf', clock.now()).catch((error: unknown) => {
        csrfSecret = null;
        throw error;
      });
      return csrfSecret;
    });
    const userTokens = new UserTokenAuthenticator({
      database,
      clock,
      tenants,
      sessions,
      accessTokens,
      csrf,
      cache: identityCache,
    });
    const apiKeyAuthenticator = new ApiKeyAuthenticator({ database, clock, apiKeys, cache: identityCache });

    const signInLimits = new SignInLimits({
      store: rateLimitStore,
      clock,
      logger,
      metrics,
      keyPrefix: config.rateLimit.redisKeyPrefix,
      enabled: config.rateLimit.enabled,
      onStoreFailure: config.rateLimit.onStoreFailure,
      limits: config.auth.signInLimits,
    });
    const auth = new AuthService({
      database,
      clock,
      tenants,
      tenantsService,
      users,
      sessions,
      mail,
      accessTokens,
      csrf,
      signInLimits,
      identityChanged,
    });
    const usersService = new UsersService({ database, clock, users, tenants, sessions, mail, identityChanged });
    const apiKeysService = new ApiKeysService({ database, clock, apiKeys, tenants, identityChanged });
    const workspacesService = new WorkspacesService({ database, clock, workspaces, users });
    return {
      provides: {
        tenants: tenantsService,
        tenantChanges: { subscribe: (listener) => void listeners.push(listener) },
        tenantDirectory: {
          findBySubdomain: (subdomain) => tenants.findBySubdomain(database.db, subdomain),
          findById: (id) => tenants.findById(database.db, id),
          isConfiguredOrigin: (origin) => tenants.isConfiguredOrigin(database.db, origin),
        },
        authenticators: {
          apiKey: (key, options) => apiKeyAuthenticator.authenticate(key, options),
          userToken: (request, token) => userTokens.authenticate(request, token),
          csrf: (request, authContext) => userTokens.checkCsrf(request, authContext),
        },
        auth,
        users: usersService,
        apiKeys: apiKeysService,
        workspaces: workspacesService,
        members: new MemberDirectory({ users, workspaces }),
      },
      testSeams: {
        signingKeys,
        credentialCache: { stats: () => identityCache.credentials.stats() },
      },
      routes(app) {
        adminTenantRoutes(app, { tenants: tenantsService });
        tenantSettingsRoutes(app, { tenants: tenantsService });
        authRoutes(app, { auth });
        apiKeyRoutes(app, { apiKeys: apiKeysService });
        userRoutes(app, { users: usersService });
        workspaceRoutes(app, { workspaces: workspacesService });
      },
      close: () => identityCache.close(),
      async sandboxCleanup(trx, tenantId) {
        // API keys stay (they are the sandbox's credentials); users and sessions belong to the live tenant.
        await trx.deleteFrom('workspaces').where('tenant_id', '=', tenantId).execute();
      },
    };
  },
});
