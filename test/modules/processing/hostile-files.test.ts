import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../../bench/support.ts';
import { type Database, openDatabase } from '../../../src/db/database.ts';
import { tinyPdf } from '../documents/helpers.ts';
import { pdfContentBomb } from '../../fixtures/extraction/bombs.ts';
import {
  call,
  type ServiceProcess,
  spawnService,
  stopService,
  upload,
  waitReady,
} from '../../process/multi-process-support.ts';
import { DIALECTS } from '../../support/app.ts';
import { createTestStore, type TestStore } from '../../support/databases.ts';
import { sampleProcessMemory } from '../../support/process-memory.ts';

/** Issue 26: the process reading the bomb (API, job worker, extraction and thumbnail threads) stays under this. */
const PEAK_LIMIT_MIB = 500;
const ADMIN_KEY = 'hostile-files-admin-key';

// The service as it is deployed embedded: one `serve` process with its job worker, started with
// the memory settings of `npm start` (package.json), its resident memory read from /proc.
for (const dialect of DIALECTS) {
  describe(`processing a decompression bomb [${dialect}]`, () => {
    let store: TestStore;
    let service: ServiceProcess;
    let database: Database;
    let headers: Record<string, string>;

    before(async () => {
      store = await createTestStore(dialect);
      const port = await freePort();
      service = spawnService(
        'serve',
        'serve',
        {
          PORT: String(port),
          DATA_DIR: store.dataDir,
          ...(store.url ? { DATABASE_URL: store.url } : {}),
          ADMIN_API_KEY: ADMIN_KEY,
          LOG_LEVEL: 'warn',
          WORKER_POLL_INTERVAL_MS: '50',
          MALLOC_ARENA_MAX: '2',
          MALLOC_MMAP_THRESHOLD_: '1048576',
        },
        ['--max-semi-space-size=4'],
      );
      await waitReady(service, 60_000);
      database = openDatabase({ url: store.url, dataDir: store.dataDir });
      const tenant = await call(
        service.base!,
        'POST',
        '/api/v1/admin/tenants',
        { authorization: `Bearer ${ADMIN_KEY}` },
        {
          name: 'Bombs',
          subdomain: `bombs-${dialect}`,
          tier: 'enterprise',
          owner: { email: 'owner@bombs.example', password: 'a long password', name: 'Owner' },
        },
      );
      assert.equal(tenant.status, 201, JSON.stringify(tenant.body));
      headers = { 'x-api-key': tenant.body.api_key };
    });

    after(async () => {
      await stopService(service);
      await database?.destroy();
      await store.drop();
    });

    /** The document once its extraction and thumbnail jobs are done. */
    const settled = async (id: string, timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const doc = (await call(service.base!, 'GET', `/api/v1/documents/${id}`, headers)).body;
        const pending = await database.db
          .selectFrom('jobs')
          .select('id')
          .where('kind', 'in', ['processing.extract', 'documents.thumbnail', 'processing.enrich', 'processing.index'])
          .where('state', 'in', ['available', 'running'])
          .execute();
        if (doc.status !== 'processing' && pending.length === 0) return doc;
        if (Date.now() > deadline)
          throw new Error(
            `document ${id} still ${doc.status} with ${pending.length} job(s) pending:\n${service.output()}`,
          );
        // 50 ms, like the service's worker polls: at 250 ms each settle waited ~125 ms past the jobs' end on average.
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    const BOMBS = [
      {
        what: 'a 1 MB PDF whose content stream inflates to 1 GiB (through the platform inflater)',
        bytes: () => pdfContentBomb(1024 ** 3),
        message: 'the PDF file has a compressed stream (FlateDecode) that unpacks to more than the 64 MB allowed',
      },
      {
        what: "the same stream with PNG predictors (pdf.js's own JavaScript inflater, stopped by the thread's memory watch)",
        bytes: () => pdfContentBomb(1024 ** 3, { predictor: true }),
        message: 'the PDF file needs more than 192 MB of decoded data in memory to extract',
      },
    ];
    for (const bomb of BOMBS) {
      it(`${bomb.what} fails too_large with the reason, the process peaking under 500 MB`, async (t) => {
        const bytes = bomb.bytes();
        assert.ok(bytes.length < 1.1 * 1024 * 1024, `${bytes.length} bytes`);
        const memory = sampleProcessMemory(service.pid);
        const before = memory.current();
        const sent = await upload(service.base!, headers, 'bomb.pdf', bytes);
        assert.equal(sent.status, 201, sent.error);
        const doc = await settled(sent.id!, 120_000);
        const { peakMiB, peaks } = memory.stop();
        t.diagnostic(
          `RSS before ${Math.round(before)} MiB, peak ${Math.round(peakMiB)} MiB (${[...peaks].map(([pid, mib]) => `${pid}: ${Math.round(mib)}`).join(', ')})`,
        );

        assert.equal(doc.status, 'failed');
        assert.equal(doc.ai_status, 'failed');
        assert.deepEqual(doc.processing_error, { stage: 'extraction', message: bomb.message });
        assert.ok(peakMiB < PEAK_LIMIT_MIB, `peak ${Math.round(peakMiB)} MiB over ${peaks.size} process(es)`);
        // The thumbnail, drawn under the same guards, fell back to the type icon.
        const thumbnail = await fetch(`${service.base}/api/v1/documents/${sent.id}/thumbnail`, { headers });
        assert.equal(thumbnail.status, 200);
        assert.match(String(thumbnail.headers.get('content-type')), /image\/svg\+xml/);
        assert.match(await thumbnail.text(), /<svg[\s\S]*PDF/);
      });
    }

    it('a normal PDF still extracts afterwards (on a fresh thread)', async () => {
      const sent = await upload(service.base!, headers, 'fine.pdf', tinyPdf('Invoice total due'));
      assert.equal(sent.status, 201, sent.error);
      const doc = await settled(sent.id!, 60_000);
      assert.equal(doc.status, 'completed');
      assert.equal(doc.processing_error, null);
      assert.match(
        (await call(service.base!, 'GET', `/api/v1/documents/${sent.id}/content`, headers)).body.content,
        /Invoice total due/,
      );
    });
  });
}
