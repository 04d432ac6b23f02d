import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import type { DialectName } from '../../src/db/database.ts';
import { multipart } from '../../test/modules/documents/helpers.ts';
import { startTestApp, type TestApp } from '../../test/support/app.ts';
import { createTenant } from '../../test/support/fixtures.ts';
import { median } from '../support.ts';

// The trail's share of the CPU of an audited request, from a CPU profile (docs/benchmarks.md,
// "Audit trail"): one app with the audit trail, audited content reads or uploads, 8 concurrent
// callers, after a warm-up; the batch flushed inside the profile. A sample is the trail's when its
// innermost JavaScript frame outside Node's internals is in src/modules/audit (the hooks' own work;
// not Fastify's pipeline or the handler that their `done()` resumes), or when one of the trail's writing functions
// is on its stack (the record built, buffered, flushed, inserted: SQLite's work included, not a
// PostgreSQL server's). Garbage collection is not attributed (it has no stack).
//
//   node bench/audit/profile-target.ts [sqlite|postgres] [content|upload] [requests]

/** The trail's functions that write a record (audit-trail.ts, audit-http.ts, audit.repository.ts). */
const WRITERS = new Set([
  'recordRead',
  'recordIn',
  'record',
  'row',
  'buffer',
  'flush',
  'insert',
  'onSendSlow',
  'refusal',
]);
const AUDIT = '/src/modules/audit/';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

/** Busy milliseconds of the profile (idle, program and GC apart) and the trail's share of them. */
function auditShare(profile: { nodes: ProfileNode[]; samples?: number[]; timeDeltas?: number[] }) {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const isAudit = new Map<number, boolean>();
  const classify = (id: number): boolean => {
    let innermost: string | null = null;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const { functionName, url } = byId.get(at)!.callFrame;
      if (url.includes(AUDIT) && WRITERS.has(functionName)) return true;
      // Node's internals and built-ins are transparent; the first other frame says whose work it is
      // (Fastify's pipeline that a hook's `done()` resumes is not the trail's).
      if (innermost === null && url !== '' && !url.startsWith('node:')) innermost = url;
    }
    return innermost?.includes(AUDIT) ?? false;
  };
  let busy = 0;
  let audit = 0;
  let gc = 0;
  const samples = profile.samples ?? [];
  samples.forEach((id, i) => {
    const us = profile.timeDeltas?.[i] ?? 0;
    const name = byId.get(id)!.callFrame.functionName;
    // Wall time between samples: on a loaded machine it includes time the process waited for a core.
    if (name === '(idle)' || name === '(program)') return;
    if (name === '(garbage collector)') gc += us;
    busy += us;
    if (!isAudit.has(id)) isAudit.set(id, classify(id));
    if (isAudit.get(id)) audit += us;
  });
  return {
    busy_ms: Math.round(busy / 1000),
    gc_ms: Math.round(gc / 1000),
    audit_ms: Math.round(audit / 1000),
    audit_percent_of_busy: Math.round((audit / busy) * 10_000) / 100,
  };
}

/**
 * What one record costs on its own, in wall µs (medians of 5): a record inserted in a transaction
 * (200 per transaction, as an upload's: the statement, its six index entries, no commit of its own)
 * and a row of a flushed batch of 500 (built, buffered, written). The profile's share may miss the
 * statement's own execution when it runs after one of Kysely's awaits, off the trail's stack.
 */
async function recordCost(t: TestApp, tenantId: string) {
  const trail = t.container.modules.use('audit');
  const entry = (i: number) => ({
    tenantId,
    actor: { type: 'user' as const, id: 'bench-user' },
    action: 'document.upload',
    targetType: 'document',
    targetId: `bench-${i}`,
    outcome: 'success' as const,
    status: 201,
    origin: { ip: '127.0.0.1', userAgent: 'bench/1.0', requestId: `req-${i}` },
  });
  const inTransaction: number[] = [];
  const batched: number[] = [];
  for (let k = 0; k < 5; k++) {
    let started = performance.now();
    await t.container.database.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 200; i++) await trail.record(trx, entry(i));
    });
    inTransaction.push(((performance.now() - started) * 1000) / 200);
    started = performance.now();
    for (let i = 0; i < 500; i++) trail.buffer(trail.row(entry(i)));
    await trail.flush();
    batched.push(((performance.now() - started) * 1000) / 500);
  }
  return { record_in_transaction_us: Math.round(median(inTransaction)), batched_row_us: Math.round(median(batched)) };
}

export async function profileTarget(dialect: DialectName, what: 'content' | 'upload', n: number) {
  const t = await startTestApp(dialect, { env: { RATE_LIMIT_ENABLED: 'false' } });
  try {
    const tenant = await createTenant(t, { tier: 'enterprise' });
    const upload = async (i: number) => {
      const body = multipart([
        { name: 'file', filename: `note-${i}.txt`, content: Buffer.from(`A short note number ${i}.\n`.repeat(20)) },
      ]);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/documents/upload',
        payload: body.payload,
        headers: { ...tenant.headers, ...body.headers },
      });
      if (res.statusCode !== 201) throw new Error(`upload: ${res.statusCode} ${res.body}`);
      return res.json().id as string;
    };
    const doc = await upload(-1);
    const one =
      what === 'upload'
        ? (i: number) => upload(i).then(() => {})
        : async () => {
            const res = await t.app.inject({
              method: 'GET',
              url: `/api/v1/documents/${doc}/content`,
              headers: tenant.headers,
            });
            if (res.statusCode !== 200) throw new Error(`content: ${res.statusCode}`);
          };
    const burst = async (count: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < count) await one(next++);
        }),
      );
      await t.container.modules.use('audit').flush();
    };
    await burst(Math.ceil(n / 10));
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
    await burst(n);
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    return { requests: n, ...auditShare(profile), ...(await recordCost(t, tenant.tenantId)) };
  } finally {
    await t.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dialect = (process.argv[2] ?? 'sqlite') as DialectName;
  const what = (process.argv[3] ?? 'content') as 'content' | 'upload';
  const share = await profileTarget(dialect, what, Number(process.argv[4] ?? (what === 'upload' ? 600 : 4000)));
  console.log(JSON.stringify({ dialect, what, ...share }));
}
