/*
 * Human tasks at scale, on SQLite and (when it answers) PostgreSQL, one app with its in-process worker:
 *   10,000 pending tasks (100 executions x 100 parallel approval nodes, Enterprise tenant), assigned
 *   round-robin to 100 users, 10 custom roles and 10 workspaces, each with escalation and expiry
 *   timers an hour away (20,000 pending timer jobs);
 *   listing: GET /dag/tasks?assignee=<user>&status=pending (direct, role and workspace tasks of that
 *   user) through HTTP, 200 samples over different users, p50/p99 — against GET /healthz-like
 *   baseline of the same app (GET /dag/workflows?page_size=1) in the same run;
 *   idle CPU of the process with all of that pending;
 *   timers: 100 more tasks escalating 3 s after their node started, lateness of `escalated_at`.
 * Run: node bench/workflows-tasks.bench.ts [--tasks 10000]
 */
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { DialectName } from '../src/db/database.ts';
import type { AuthContext } from '../src/domain/auth-context.ts';
import { availableDialects } from '../test/support/databases.ts';
import { startTestApp, type TestApp } from '../test/support/app.ts';
import { percentile } from './support.ts';
import { cpuPercentOver, drained, enterpriseTenant, round, summary } from './workflows-support.ts';

const PER_EXECUTION = 100;
const USERS = 100;
const ROLES = 10;
const WORKSPACES = 10;
const SAMPLED = 100;

export interface TasksBenchResult {
  dialect: DialectName;
  pendingTasks: number;
  pendingTimerJobs: number;
  createSeconds: number;
  listMs: { p50: number; p99: number; max: number; meanTasksPerUser: number };
  baselineMs: { p50: number; p99: number };
  idleCpuPercent: number;
  escalationLateMs: { p50: number; p99: number; max: number };
}

export async function run(options: { tasks?: number; log?: (line: string) => void } = {}): Promise<TasksBenchResult[]> {
  const results: TasksBenchResult[] = [];
  for (const dialect of await availableDialects()) {
    const result = await benchDialect(dialect, options.tasks ?? 10_000);
    options.log?.(JSON.stringify(result));
    results.push(result);
  }
  return results;
}

async function benchDialect(dialect: DialectName, tasks: number): Promise<TasksBenchResult> {
  const t = await startTestApp(dialect, { env: { WORKER_POLL_INTERVAL_MS: '200', LOG_LEVEL: 'silent' } });
  try {
    const { auth, apiKey, users, workspaces } = await setUp(t);
    const workflows = t.container.modules.use('workflows');
    const service = t.container.modules.use('workflowExecutions');
    const node = (i: number, hours: number, escalate: number) => {
      const kind = i % 3;
      const assignee =
        kind === 0
          ? { assignee_type: 'user', assignee_value: users[i % USERS]! }
          : kind === 1
            ? { assignee_type: 'role', assignee_value: `role${i % ROLES}` }
            : { assignee_type: 'workspace', assignee_value: workspaces[i % WORKSPACES]! };
      return {
        id: `a${i}`,
        type: 'human_approval',
        timeout_hours: hours,
        config: { ...assignee, title: `Task ${i}`, escalate_after_hours: escalate },
      };
    };
    const bulk = (
      await workflows.create(auth, {
        name: 'Many tasks',
        nodes: Array.from({ length: PER_EXECUTION }, (_, i) => node(i, 2, 1)),
      })
    ).id;
    const worker = t.container.createWorker();
    await worker.start();
    try {
      const started = performance.now();
      for (let e = 0; e < tasks / PER_EXECUTION; e++) await service.execute(auth, bulk, { triggerData: {} });
      const db = t.container.database.db;
      const count = async () =>
        Number(
          (
            await db
              .selectFrom('workflow_tasks')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('status', '=', 'pending')
              .executeTakeFirstOrThrow()
          ).n,
        );
      while ((await count()) < tasks) await new Promise((r) => setTimeout(r, 200));
      const createSeconds = (performance.now() - started) / 1000;
      const timerJobs = Number(
        (
          await db
            .selectFrom('jobs')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('kind', '=', 'workflows.task_timer')
            .where('state', '=', 'available')
            .executeTakeFirstOrThrow()
        ).n,
      );

      const headers = { 'x-api-key': apiKey };
      const list: number[] = [];
      let listed = 0;
      const baseline: number[] = [];
      for (let i = 0; i < 200; i++) {
        let t0 = performance.now();
        const res = await t.app.inject({
          url: `/api/v1/dag/tasks?assignee=${users[i % USERS]}&status=pending&page_size=20`,
          headers,
        });
        list.push(performance.now() - t0);
        listed += res.json().total;
        t0 = performance.now();
        await t.app.inject({ url: '/api/v1/dag/workflows?page_size=1', headers });
        baseline.push(performance.now() - t0);
      }

      await drained(t);
      const idleCpuPercent = await cpuPercentOver(5_000);

      const sampleFlow = (await workflows.create(auth, { name: 'Escalates soon', nodes: [node(0, 1, 3 / 3600)] })).id;
      const sampled: string[] = [];
      for (let i = 0; i < SAMPLED; i++) sampled.push((await service.execute(auth, sampleFlow, { triggerData: {} })).id);
      const escalated = async () =>
        db
          .selectFrom('workflow_tasks')
          .select(['escalated_at', 'escalation_at'])
          .where('execution_id', 'in', sampled)
          .where('escalated_at', 'is not', null)
          .execute();
      let rows = await escalated();
      while (rows.length < SAMPLED) {
        await new Promise((r) => setTimeout(r, 200));
        rows = await escalated();
      }
      const late = rows.map((r) => Number(r.escalated_at) - Number(r.escalation_at));
      return {
        dialect,
        pendingTasks: tasks,
        pendingTimerJobs: timerJobs,
        createSeconds: round(createSeconds),
        listMs: { ...summary(list), meanTasksPerUser: round(listed / 200) },
        baselineMs: { p50: round(percentile(baseline, 50)), p99: round(percentile(baseline, 99)) },
        idleCpuPercent,
        escalationLateMs: summary(late),
      };
    } finally {
      await worker.stop(10_000);
    }
  } finally {
    await t.close();
  }
}

/** An Enterprise tenant with 100 users (each with one of 10 custom roles) in 10 workspaces. */
async function setUp(
  t: TestApp,
): Promise<{ auth: AuthContext; apiKey: string; users: string[]; workspaces: string[] }> {
  const { auth, apiKey } = await enterpriseTenant(t, 'Tasks');
  const headers = { 'x-api-key': apiKey };
  const workspaces: string[] = [];
  for (let w = 0; w < WORKSPACES; w++)
    workspaces.push(
      (await t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers, payload: { name: `ws${w}` } })).json()
        .id,
    );
  const users: string[] = [];
  for (let u = 0; u < USERS; u++) {
    const user = await t.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers,
      payload: {
        email: `u${u}@tasks.example.com`,
        name: `User ${u}`,
        role: 'member',
        roles: [`role${u % ROLES}`],
        password: 'a long test password',
      },
    });
    users.push(user.json().id);
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/workspaces/${workspaces[u % WORKSPACES]}/members`,
      headers,
      payload: { user_id: user.json().id },
    });
  }
  return { auth, apiKey, users, workspaces };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { tasks: { type: 'string' } } });
  await run({ ...(values.tasks ? { tasks: Number(values.tasks) } : {}), log: (line) => console.log(line) });
  process.exit(0);
}
