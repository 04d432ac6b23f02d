import type { AuthContext } from '../src/domain/auth-context.ts';
import type { TestApp } from '../test/support/app.ts';
import { percentile } from './support.ts';

/** Helpers shared by the workflow benchmarks. */

/** An Enterprise tenant (no workflow limits), its API key, and an administrator's auth context for its services. */
export async function enterpriseTenant(t: TestApp, name: string): Promise<{ auth: AuthContext; apiKey: string }> {
  const res = await t.admin({
    method: 'POST',
    url: '/api/v1/admin/tenants',
    payload: {
      name,
      subdomain: `${name.toLowerCase()}${Date.now()}`,
      tier: 'enterprise',
      owner: {
        email: `owner@${name.toLowerCase()}.example.com`,
        password: 'correct horse battery staple',
        name: 'Owner',
      },
    },
  });
  const body = res.json();
  const tenant = await t.container.modules.use('tenantDirectory').findById(body.tenant.id);
  return {
    auth: {
      tenant: tenant!,
      userId: null,
      role: 'admin',
      roles: [],
      via: 'api_key',
      apiKeyId: 'bench',
      sessionId: null,
      sandbox: false,
    },
    apiKey: body.api_key,
  };
}

/** Waits until no job is due (event fan-out and the like have caught up), so an idle measurement is idle. */
export async function drained(t: TestApp): Promise<void> {
  const db = t.container.database.db;
  for (;;) {
    const due = await db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('state', 'in', ['available', 'running'])
      .where('run_at', '<=', Date.now())
      .executeTakeFirstOrThrow();
    if (Number(due.n) === 0) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** CPU of this process (user + system) over `ms`, in % of one core. */
export async function cpuPercentOver(ms: number): Promise<number> {
  const before = process.cpuUsage();
  await new Promise((r) => setTimeout(r, ms));
  const used = process.cpuUsage(before);
  return round(((used.user + used.system) / 1000 / ms) * 100);
}

export function summary(values: number[]) {
  return { p50: round(percentile(values, 50)), p99: round(percentile(values, 99)), max: round(Math.max(...values)) };
}

export function round(n: number): number {
  return Math.round(n * 10) / 10;
}
