import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createContainer } from '../../src/container.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { TIER_LIMITS } from '../../src/domain/tiers.ts';

/**
 * The service under load for the auth benchmark, in its own process: the real app (authentication,
 * rate limiting, CORS, idempotency hooks) on DATA_DIR / DATABASE_URL. Enterprise limits are raised
 * from "unlimited" to a number never reached, so the limiter counts every request without blocking.
 * Prints one JSON line {url, headers} once listening.
 */
const HIGH = 1_000_000_000;
TIER_LIMITS.enterprise.requestsPerMinute = HIGH;
for (const type of Object.keys(
  TIER_LIMITS.enterprise.endpointTypes,
) as (keyof typeof TIER_LIMITS.enterprise.endpointTypes)[]) {
  TIER_LIMITS.enterprise.endpointTypes[type] = HIGH;
}

const adminKey = 'bench-admin-key-0123456789abcdef';
const config = loadConfig({ ...process.env, ADMIN_API_KEY: adminKey, LOG_LEVEL: 'silent', WORKER_IN_PROCESS: 'false' });
const container = await createContainer(config);
await migrateToLatest(container.database.db);
const app = await buildApp(container, { logger: false });
await app.listen({ port: Number(process.env['PORT']), host: '127.0.0.1' });

const created = await app.inject({
  method: 'POST',
  url: '/api/v1/admin/tenants',
  headers: { authorization: `Bearer ${adminKey}` },
  payload: {
    name: 'Bench',
    subdomain: `bench-${process.pid}`,
    tier: 'enterprise',
    owner: { email: 'bench@example.com', password: 'bench password', name: 'Bench' },
  },
});
const tenant = created.json() as { api_key: string; owner: { id: string }; tenant: { subdomain: string } };
// The same GET with a user token (bearer access token + X-Tenant-Subdomain) of the owner.
const login = await app.inject({
  method: 'POST',
  url: '/api/v1/auth/login',
  headers: { 'x-tenant-subdomain': tenant.tenant.subdomain },
  payload: { email: 'bench@example.com', password: 'bench password' },
});
const tokens = login.json() as { access_token: string };
const url = `http://127.0.0.1:${process.env['PORT']}/api/v1/users/${tenant.owner.id}`;
process.stdout.write(
  `${JSON.stringify({
    url,
    headers: { 'x-api-key': tenant.api_key },
    userToken: {
      url,
      headers: { authorization: `Bearer ${tokens.access_token}`, 'x-tenant-subdomain': tenant.tenant.subdomain },
    },
  })}\n`,
);
process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => container.close())
    .then(() => process.exit(0));
});
