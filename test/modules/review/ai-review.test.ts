import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { uploadOk } from '../documents/helpers.ts';
import { learnedTagsOf, settled, trainingDone } from '../processing/ai-helpers.ts';
import { invoice, offerLetter } from '../processing/tagged-corpus.ts';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant, type LoggedInUser, loginAs, type TestTenant } from '../../support/fixtures.ts';

/*
 * The AI review queue (issue 27 item 5, docs/processing.md "Review"), end to end through HTTP:
 * with a tenant's `ai_review_threshold`, AI types, fields and tags below it become a review task
 * instead of document results; approving, rejecting or editing the task applies (or drops) them;
 * confirmed values survive a reprocess; accepted tags train the learned tags; only people who
 * may edit the document see or decide its task.
 */

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
type Json = any;

/** Every AI result of a processed document with its confidence, by the name a review uses. */
function confidences(doc: Json): Map<string, number> {
  const out = new Map<string, number>();
  if (doc.ai_document_type) out.set('document_type', doc.ai_document_type.confidence);
  for (const [name, field] of Object.entries<Json>(doc.ai_fields)) out.set(`fields.${name}`, field.confidence);
  for (const tag of doc.ai_tag_details) out.set(`tags.${tag.name}`, tag.confidence);
  return out;
}

describeEachDialect(
  'AI review queue',
  (ctx) => {
    let tenant: TestTenant;
    const call = (method: 'GET' | 'POST' | 'PATCH', url: string, headers: Record<string, string>, payload?: unknown) =>
      ctx().app.inject({
        method,
        url: `/api/v1${url}`,
        headers,
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    const setThreshold = async (who: TestTenant, value: number | null) => {
      const res = await call('PATCH', '/tenant/settings', who.headers, { ai_review_threshold: value });
      assert.equal(res.statusCode, 200, res.body);
    };
    const uploadInvoice = async (
      who: TestTenant,
      i: number,
      headers: Record<string, string> = who.headers,
      tags: string[] = [],
    ) =>
      settled(
        ctx(),
        await uploadOk(ctx(), headers, {
          filename: `invoice-${i}.txt`,
          content: Buffer.from(invoice(i)),
          fields: tags.length ? { tags } : {},
        }),
        who.headers,
      );
    const reprocess = async (id: string) => {
      assert.equal((await call('POST', `/documents/${id}/reprocess`, tenant.headers)).statusCode, 202);
      // The answer is `processing` at once; wait for the run to finish.
      return settled(ctx(), id, tenant.headers);
    };
    const complete = (taskId: string, body: object, headers = tenant.headers) =>
      call('POST', `/dag/tasks/${taskId}/complete`, headers, body);
    const task = async (id: string, headers = tenant.headers) =>
      (await call('GET', `/dag/tasks/${id}`, headers)).json();

    /** Confidences of the invoice text with no threshold, to choose thresholds that split its results. */
    let baseline: Map<string, number>;

    before(async () => {
      tenant = await createTenant(ctx());
      baseline = confidences(await uploadInvoice(tenant, 0));
      assert.ok(
        baseline.has('document_type') &&
          [...baseline.keys()].some((k) => k.startsWith('fields.')) &&
          [...baseline.keys()].some((k) => k.startsWith('tags.')),
        JSON.stringify([...baseline]),
      );
    });

    it('holds the results below the threshold in one review task and applies the others', async () => {
      // The highest confidence as the threshold: results at it are applied, every other one held.
      const threshold = Math.max(...baseline.values());
      await setThreshold(tenant, threshold);
      const doc = await uploadInvoice(tenant, 0);
      const held = [...baseline].filter(([, c]) => c < threshold).map(([name]) => name);
      const applied = [...baseline].filter(([, c]) => c >= threshold).map(([name]) => name);
      assert.ok(held.length > 0 && applied.length > 0, JSON.stringify([...baseline]));
      assert.deepEqual([...doc.ai_review.pending].sort(), [...held].sort());
      assert.deepEqual(
        [...confidences(doc).keys()].sort(),
        [...applied].sort(),
        'the document shows only the results at or above the threshold',
      );

      const t = await task(doc.ai_review.task_id);
      assert.equal(t.source, 'ai_review');
      assert.equal(t.source_ref, doc.id);
      assert.equal(t.task_type, 'review');
      assert.equal(t.status, 'pending');
      for (const name of held.filter((n) => !n.startsWith('tags.')))
        assert.ok(name in t.data, `${name} in ${JSON.stringify(t.data)}`);
      const heldTags = held.filter((n) => n.startsWith('tags.')).map((n) => n.slice(5));
      assert.deepEqual([...(t.data.tags ?? [])].sort(), heldTags.sort());
      assert.deepEqual([...t.editable_fields].sort(), Object.keys(t.data).sort());
      for (const [name, c] of Object.entries<number>(t.context.confidences)) assert.ok(c < threshold, `${name} ${c}`);
      await setThreshold(tenant, null);
    });

    it('approve applies the held results as confirmed, and a reprocess keeps them', async () => {
      await setThreshold(tenant, 1);
      const doc = await uploadInvoice(tenant, 1);
      assert.equal(doc.ai_document_type, null, 'below a threshold of 1, every result waits');
      assert.deepEqual(doc.ai_fields, {});
      assert.deepEqual(doc.ai_tags, []);
      const asked = (await task(doc.ai_review.task_id)).data;
      const res = await complete(doc.ai_review.task_id, { decision: 'approved' });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().execution_id, null);

      const after = (await call('GET', `/documents/${doc.id}`, tenant.headers)).json();
      assert.equal(after.ai_review, null);
      assert.deepEqual(after.ai_document_type, { value: asked.document_type, confidence: 1, confirmed: true });
      for (const [key, value] of Object.entries<Json>(asked).filter(([k]) => k.startsWith('fields.'))) {
        assert.deepEqual(after.ai_fields[key.slice(7)], { value, confidence: 1, confirmed: true });
      }
      for (const tag of asked.tags) assert.ok(after.tags.includes(tag), `approved tag ${tag} is applied`);

      const again = await reprocess(doc.id);
      assert.equal(again.ai_review, null, 'confirmed results are not asked about again');
      assert.deepEqual(again.ai_document_type, after.ai_document_type);
      assert.deepEqual(again.ai_fields, after.ai_fields);
      assert.equal((await task(doc.ai_review.task_id)).status, 'completed');
      await setThreshold(tenant, null);
    });

    it('reject drops the held results, and a reprocess never brings them back', async () => {
      await setThreshold(tenant, 1);
      const doc = await uploadInvoice(tenant, 2);
      const asked = (await task(doc.ai_review.task_id)).data;
      assert.equal(
        (await complete(doc.ai_review.task_id, { decision: 'rejected', comments: 'wrong document' })).statusCode,
        200,
      );
      const after = (await call('GET', `/documents/${doc.id}`, tenant.headers)).json();
      assert.equal(after.ai_review, null);
      assert.equal(after.ai_document_type, null);
      assert.deepEqual(after.ai_fields, {});
      assert.deepEqual(after.tags, []);
      // Without a threshold, a reprocess would apply everything the AI finds, except what was rejected.
      await setThreshold(tenant, null);
      const again = await reprocess(doc.id);
      assert.equal(again.ai_review, null);
      assert.equal(again.ai_document_type, null);
      assert.deepEqual(again.ai_fields, {});
      for (const tag of asked.tags) assert.ok(!again.ai_tags.includes(tag), `rejected tag ${tag} stays away`);
    });

    it('edit applies corrected values, rejects those set to null, keeps the listed tags; a reprocess keeps all of it', async () => {
      await setThreshold(tenant, 1);
      const doc = await uploadInvoice(tenant, 3);
      const taskId = doc.ai_review.task_id;
      const asked = (await task(taskId)).data;
      const fields = Object.keys(asked).filter((k) => k.startsWith('fields.'));
      assert.ok(fields.length >= 2, JSON.stringify(asked));
      const [corrected, dropped] = fields as [string, string];
      const [keptTag, ...droppedTags] = asked.tags as string[];

      // Bad corrections are refused and leave the task pending.
      assertError(
        await complete(taskId, { decision: 'modified', modified_data: { document_type: 'spaceship' } }),
        400,
        'validation_error',
      );
      assertError(
        await complete(taskId, { decision: 'modified', modified_data: { [corrected]: { value: 12 } } }),
        400,
        'validation_error',
      );
      assertError(
        await complete(taskId, { decision: 'modified', modified_data: { tags: 'finance' } }),
        400,
        'validation_error',
      );
      assertError(
        await complete(taskId, { decision: 'modified', modified_data: { summary: 'x' } }),
        400,
        'validation_error',
      );
      assert.equal((await task(taskId)).status, 'pending');

      const res = await complete(taskId, {
        decision: 'modified',
        modified_data: {
          document_type: 'receipt',
          [corrected]: { value: 99.5, currency: 'EUR' },
          [dropped]: null,
          tags: [keptTag, 'Finance Review'],
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      await setThreshold(tenant, null);
      for (const current of [
        (await call('GET', `/documents/${doc.id}`, tenant.headers)).json(),
        await reprocess(doc.id),
      ]) {
        assert.deepEqual(current.ai_document_type, { value: 'receipt', confidence: 1, confirmed: true });
        assert.deepEqual(current.ai_fields[corrected.slice(7)], {
          value: { value: 99.5, currency: 'EUR', text: 'EUR 99.5' },
          confidence: 1,
          confirmed: true,
        });
        assert.equal(current.ai_fields[dropped.slice(7)], undefined);
        assert.deepEqual([...current.tags].sort(), [keptTag, 'Finance Review'].sort());
        for (const tag of droppedTags) assert.ok(!current.ai_tags.includes(tag), `${tag} was dropped`);
      }
      assertError(await complete(taskId, { decision: 'approved' }), 409, 'task_already_completed');
      // The corrected type is what the learned tags read of the document.
      const row = await ctx()
        .container.database.db.selectFrom('learned_tag_terms')
        .select('terms')
        .where('document_id', '=', doc.id)
        .executeTakeFirstOrThrow();
      const typeTerms = Object.keys(JSON.parse(row.terms)).filter((t) => t.startsWith('type:'));
      assert.deepEqual(typeTerms, ['type:receipt']);
    });

    it('a reprocess replaces a pending review task with a new one', async () => {
      await setThreshold(tenant, 1);
      const doc = await uploadInvoice(tenant, 4);
      const first = doc.ai_review.task_id;
      const again = await reprocess(doc.id);
      assert.notEqual(again.ai_review.task_id, first);
      assert.equal((await task(first)).status, 'expired');
      assertError(await complete(first, { decision: 'approved' }), 409, 'task_expired');
      assert.equal((await task(again.ai_review.task_id)).status, 'pending');
      await setThreshold(tenant, null);
    });

    it('accepted tags train the learned tags', async () => {
      // A library of its own: four invoices tagged `finance` by hand, five offer letters tagged `hr`;
      // a fifth invoice gets `finance` through a review.
      const learner = await createTenant(ctx());
      const upload = async (name: string, text: string, tags: string[]) =>
        settled(
          ctx(),
          await uploadOk(ctx(), learner.headers, {
            filename: name,
            content: Buffer.from(text),
            fields: tags.length ? { tags } : {},
          }),
          learner.headers,
        );
      for (const i of [0, 1, 2, 3]) await upload(`invoice-${i}.txt`, invoice(i), ['finance']);
      for (const i of [0, 1, 2, 3, 4]) await upload(`offer-${i}.txt`, offerLetter(i), ['hr']);
      await setThreshold(learner, 1);
      const doc = await upload('invoice-4.txt', invoice(4), []);
      const res = await complete(
        doc.ai_review.task_id,
        { decision: 'modified', modified_data: { tags: ['finance'] } },
        learner.headers,
      );
      assert.equal(res.statusCode, 200, res.body);
      await trainingDone(ctx(), learner.tenantId);
      await setThreshold(learner, null);
      const probe = await upload('invoice-probe.txt', invoice(9), []);
      assert.ok((learnedTagsOf(probe).get('finance') ?? 0) >= 0.5, JSON.stringify(probe.ai_tag_details));
    });

    it('only people who may edit the document see or decide its review task', async () => {
      const owner = await loginAs(ctx(), tenant, 'owner');
      const author = await loginAs(ctx(), tenant, 'member', { email: `author-${tenant.subdomain}@example.com` });
      const editor = await loginAs(ctx(), tenant, 'member', { email: `editor-${tenant.subdomain}@example.com` });
      const reader = await loginAs(ctx(), tenant, 'member', { email: `reader-${tenant.subdomain}@example.com` });
      const stranger = await loginAs(ctx(), tenant, 'member', { email: `stranger-${tenant.subdomain}@example.com` });
      const viewer = await loginAs(ctx(), tenant, 'viewer');
      await setThreshold(tenant, 1);
      const doc = await uploadInvoice(tenant, 20, author.headers);
      const taskId = doc.ai_review.task_id;
      for (const [who, permission] of [
        [editor, 'edit'],
        [reader, 'view'],
        [viewer, 'edit'],
      ] as const) {
        const shared = await call('POST', `/documents/${doc.id}/share`, author.headers, {
          user_id: who.userId,
          permission,
        });
        assert.ok(shared.statusCode === 201, shared.body);
      }
      const listed = async (who: LoggedInUser) =>
        (await call('GET', '/dag/tasks?status=pending', who.headers)).json().data.map((t: Json) => t.id);

      for (const who of [author, editor, owner]) {
        assert.equal((await call('GET', `/dag/tasks/${taskId}`, who.headers)).statusCode, 200);
        assert.ok((await listed(who)).includes(taskId));
      }
      for (const who of [reader, stranger, viewer]) {
        assertError(await call('GET', `/dag/tasks/${taskId}`, who.headers), 404, 'task_not_found');
        assert.ok(!(await listed(who)).includes(taskId));
        assertError(await complete(taskId, { decision: 'approved' }, who.headers), 404, 'task_not_found');
      }
      const other = await createTenant(ctx());
      assertError(await call('GET', `/dag/tasks/${taskId}`, other.headers), 404, 'task_not_found');
      assert.equal((await task(taskId)).status, 'pending', 'refused calls changed nothing');

      // An editor decides it.
      assert.equal((await complete(taskId, { decision: 'rejected' }, editor.headers)).statusCode, 200);
      assert.equal((await task(taskId)).decided_by, editor.userId);
      await setThreshold(tenant, null);
    });

    it('a tier without the task inbox keeps the threshold but applies every result', async () => {
      const downgraded = await createTenant(ctx());
      await setThreshold(downgraded, 1);
      const res = await ctx().admin({
        method: 'PATCH',
        url: `/api/v1/admin/tenants/${downgraded.tenantId}`,
        payload: { tier: 'pro' },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual((await call('GET', '/tenant/settings', downgraded.headers)).json(), { ai_review_threshold: 1 });
      const doc = await uploadInvoice(downgraded, 31);
      assert.equal(doc.ai_review, null);
      assert.ok(doc.ai_document_type !== null && doc.ai_tags.length > 0);
    });

    it('a tenant without a threshold gets no review tasks', async () => {
      const plain = await createTenant(ctx());
      const doc = await uploadInvoice(plain, 30);
      assert.equal(doc.ai_review, null);
      assert.ok(doc.ai_document_type !== null && doc.ai_tags.length > 0);
      assert.equal((await call('GET', '/dag/tasks', plain.headers)).json().total, 0);
    });
  },
  { worker: true },
);
