import { fileURLToPath } from 'node:url';
import type { DialectName } from '../../src/db/database.ts';
import { multipart } from '../../test/documents/helpers.ts';
import { startTestApp } from '../../test/support/app.ts';
import { createTenant } from '../../test/support/fixtures.ts';

// What `node --cpu-prof bench/audit/profile-target.ts [sqlite|postgres] [content|upload]` profiles:
// one app with the audit trail, audited content reads or uploads, 8 concurrent callers, after a
// warm-up. Read the profile's self time under src/modules/audit and in the batch's insert
// (docs/benchmarks.md, "Audit trail").

export async function profileTarget(dialect: DialectName, what: 'content' | 'upload', n: number): Promise<void> {
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
    for (const count of [Math.ceil(n / 10), n]) {
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < count) await one(next++);
        }),
      );
    }
    await t.container.modules.use('audit').flush();
  } finally {
    await t.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dialect = (process.argv[2] ?? 'sqlite') as DialectName;
  const what = (process.argv[3] ?? 'content') as 'content' | 'upload';
  await profileTarget(dialect, what, Number(process.argv[4] ?? (what === 'upload' ? 600 : 4000)));
}
