import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { jobsSettled, waitFor } from '../../jobs/helpers.ts';
import type { TestApp } from '../../support/app.ts';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant } from '../../support/fixtures.ts';
import { startDriveServer } from '../../support/google-drive-server.ts';
import { addTree, BASE, createProject, credentials, driveEnv, items, type Json, scanAndImport } from './helpers.ts';

const drive = await startDriveServer();
after(() => drive.close());

const INVOICE =
  'Invoice number: INV-2041\nVendor: Acme Corporation\nTotal: 1,250.00\n\nThe invoice covers cloud hosting, storage replication and backup services for the finance department in March.';
const CONTRACT =
  'Service contract between Globex Limited and Initech. The contract term is two years; either party may terminate the agreement with ninety days notice. Liability and confidentiality clauses apply.';
const MEMO =
  'Team memo about the quarterly offsite: the engineering team travels to Lisbon, agenda covers roadmap planning, hiring and the migration of storage clusters.';

type Headers = Record<string, string>;

/** A project over a fresh Drive tree of these text files, with agents assigned before the import starts. */
async function projectWith(t: TestApp, headers: Headers, files: Record<string, string>, agents: Json[]) {
  const tree = addTree(
    drive,
    Object.entries(files).map(([path, content]) => ({ path, content })),
  );
  const project = await createProject(t, headers, { folder_ids: [tree.rootId], credentials: credentials(drive) });
  const assigned = [];
  for (const agent of agents) {
    const res = await t.app.inject({ method: 'POST', url: `${BASE}/${project.id}/agents`, headers, payload: agent });
    assert.equal(res.statusCode, 201, res.body);
    assigned.push(res.json());
  }
  return { project, agents: assigned };
}

async function runs(t: TestApp, headers: Headers, projectId: string, query = ''): Promise<Json[]> {
  const res = await t.app.inject({ url: `${BASE}/${projectId}/agent-runs?page_size=100${query}`, headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
}

/** Waits until the project's runs number `count` and none is `queued` any more. */
async function settledRuns(
  t: TestApp,
  headers: Headers,
  projectId: string,
  count: number,
  timeoutMs = 30_000,
): Promise<Json[]> {
  return waitFor(
    async () => {
      const list = await runs(t, headers, projectId);
      return list.length === count && list.every((r) => r.status !== 'queued') ? list : undefined;
    },
    `${count} settled agent runs of project ${projectId}`,
    timeoutMs,
  );
}

async function documentOf(t: TestApp, headers: Headers, id: string): Promise<Json> {
  const res = await t.app.inject({ url: `/api/v1/documents/${id}`, headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

async function importedIds(t: TestApp, headers: Headers, projectId: string): Promise<Record<string, string>> {
  return Object.fromEntries(
    (await items(t, headers, projectId, '&status=imported')).map((i: Json) => [i.name, i.document_id]),
  );
}

async function agentTasks(t: TestApp, headers: Headers): Promise<Json[]> {
  const res = await t.app.inject({ url: '/api/v1/dag/tasks?status=pending&page_size=100', headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data.filter((task: Json) => task.source === 'import_agent');
}

describeEachDialect(
  'import agents: phases, auto-approval, approval tasks',
  (ctx) => {
    it('post-import agents with auto_approve change each document once it is processed', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const { project, agents } = await projectWith(
        t,
        tenant.headers,
        { 'invoice.txt': INVOICE, 'contract.txt': CONTRACT },
        [
          { agent_type: 'ai_tag', phase: 'post-import', auto_approve: true, config: { max_tags: 3 } },
          {
            agent_type: 'ai_classify',
            phase: 'post-import',
            auto_approve: true,
            config: {
              categories: ['invoice', { name: 'contract', description: 'legal agreement terms parties liability' }],
              metadata_key: 'doc_class',
            },
          },
        ],
      );
      await scanAndImport(t, tenant.headers, project.id);
      const done = await settledRuns(t, tenant.headers, project.id, 4);
      const ids = await importedIds(t, tenant.headers, project.id);
      assert.equal(Object.keys(ids).length, 2);
      for (const run of done) {
        assert.equal(run.status, 'applied', JSON.stringify(run));
        assert.equal(run.task_id, null);
        assert.equal(run.document_ids.length, 1);
        assert.match(run.scope, /^document:/);
      }
      const tagRuns = done.filter((r) => r.agent_id === agents[0].id);
      assert.equal(tagRuns.length, 2);
      for (const run of tagRuns) {
        const proposed: string[] = run.proposal.documents[0].tags;
        assert.ok(proposed.length > 0 && proposed.length <= 3, JSON.stringify(run.proposal));
        const doc = await documentOf(t, tenant.headers, run.document_ids[0]);
        for (const tag of proposed)
          assert.ok(doc.tags.map((x: string) => x.toLowerCase()).includes(tag.toLowerCase()), `${tag} in ${doc.tags}`);
        assert.deepEqual(run.result.documents[0].changed, ['tags']);
      }
      const invoice = await documentOf(t, tenant.headers, ids['invoice.txt']!);
      const contract = await documentOf(t, tenant.headers, ids['contract.txt']!);
      assert.equal(invoice.metadata.doc_class, 'invoice');
      assert.equal(contract.metadata.doc_class, 'contract');
      // The listing counts runs per agent and status.
      const listed = (await t.app.inject({ url: `${BASE}/${project.id}/agents`, headers: tenant.headers })).json().data;
      assert.deepEqual(
        listed.map((a: Json) => [a.agent_type, a.runs.applied, a.runs.awaiting_approval]),
        [
          ['ai_tag', 2, 0],
          ['ai_classify', 2, 0],
        ],
      );
      // A reprocessed document is processed again, but its file has settled: no second run.
      assert.equal(
        (
          await t.app.inject({
            method: 'POST',
            url: `/api/v1/documents/${ids['invoice.txt']}/reprocess`,
            headers: tenant.headers,
          })
        ).statusCode,
        202,
      );
      await waitFor(
        async () => (await documentOf(t, tenant.headers, ids['invoice.txt']!)).status === 'completed',
        'reprocessed',
      );
      await jobsSettled(t.container.database); // any further agent run would have been queued by now
      assert.equal((await runs(t, tenant.headers, project.id)).length, 4);
    });

    it('without auto_approve a proposal waits as a task: approve applies it, modified applies the edit, reject leaves the document', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const { project } = await projectWith(
        t,
        tenant.headers,
        { 'invoice.txt': INVOICE, 'contract.txt': CONTRACT, 'memo.txt': MEMO },
        [{ agent_type: 'ai_classify', phase: 'post-import', config: { categories: ['invoice', 'contract', 'memo'] } }],
      );
      await scanAndImport(t, tenant.headers, project.id);
      const waiting = await settledRuns(t, tenant.headers, project.id, 3);
      assert.ok(
        waiting.every((r) => r.status === 'awaiting_approval' && r.task_id),
        JSON.stringify(waiting),
      );
      const ids = await importedIds(t, tenant.headers, project.id);
      // Nothing applied yet.
      for (const id of Object.values(ids))
        assert.equal((await documentOf(t, tenant.headers, id)).metadata.category, undefined);

      const tasks = await agentTasks(t, tenant.headers);
      assert.equal(tasks.length, 3);
      for (const task of tasks) {
        assert.equal(task.execution_id, null);
        assert.equal(task.workflow_id, null);
        assert.equal(task.task_type, 'approval');
        assert.equal(task.workflow_name, `Import "${project.name}"`);
        assert.equal(task.assignee_type, 'role');
        assert.equal(task.assignee_value, 'admin');
        assert.equal(task.context.project_id, project.id);
        assert.equal(task.data.agent_type, 'ai_classify');
        assert.equal(task.data.documents.length, 1);
        assert.ok(waiting.some((r) => r.task_id === task.id && r.id === task.source_ref));
      }
      const taskFor = (id: string) => tasks.find((task) => task.data.documents[0].document_id === id)!;
      const complete = (taskId: string, payload: Json) =>
        t.app.inject({ method: 'POST', url: `/api/v1/dag/tasks/${taskId}/complete`, headers: tenant.headers, payload });

      const approved = await complete(taskFor(ids['invoice.txt']!).id, { decision: 'approved' });
      assert.equal(approved.statusCode, 200, approved.body);
      assert.equal(approved.json().execution_id, null);
      assert.equal(approved.json().execution_status, null);
      assert.equal(
        (await documentOf(t, tenant.headers, ids['invoice.txt']!)).metadata.category,
        taskFor(ids['invoice.txt']!).data.documents[0].category,
      );
      assertError(
        await complete(taskFor(ids['invoice.txt']!).id, { decision: 'rejected' }),
        409,
        'task_already_completed',
      );

      const contractTask = taskFor(ids['contract.txt']!);
      const edited = { documents: [{ ...contractTask.data.documents[0], category: 'agreement' }] };
      assert.equal((await complete(contractTask.id, { decision: 'modified', modified_data: edited })).statusCode, 200);
      assert.equal((await documentOf(t, tenant.headers, ids['contract.txt']!)).metadata.category, 'agreement');

      assert.equal(
        (await complete(taskFor(ids['memo.txt']!).id, { decision: 'rejected', comments: 'not now' })).statusCode,
        200,
      );
      assert.equal((await documentOf(t, tenant.headers, ids['memo.txt']!)).metadata.category, undefined);

      const after = await runs(t, tenant.headers, project.id);
      const statusOf = (id: string) => after.find((r) => r.document_ids[0] === id).status;
      assert.deepEqual(
        [statusOf(ids['invoice.txt']!), statusOf(ids['contract.txt']!), statusOf(ids['memo.txt']!)],
        ['applied', 'applied', 'rejected'],
      );
      assert.equal(
        after.find((r) => r.document_ids[0] === ids['contract.txt']).proposal.documents[0].category,
        'agreement',
      );
      assert.equal((await agentTasks(t, tenant.headers)).length, 0);
    });

    it('an edited proposal cannot reach documents outside its run', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const { project } = await projectWith(t, tenant.headers, { 'memo.txt': MEMO }, [
        { agent_type: 'ai_tag', phase: 'post-import' },
      ]);
      await scanAndImport(t, tenant.headers, project.id);
      await settledRuns(t, tenant.headers, project.id, 1);
      const [task] = await agentTasks(t, tenant.headers);
      const edited = { documents: [{ document_id: 'another-document', tags: ['hijacked'] }] };
      assert.equal(
        (
          await t.app.inject({
            method: 'POST',
            url: `/api/v1/dag/tasks/${task.id}/complete`,
            headers: tenant.headers,
            payload: { decision: 'modified', modified_data: edited },
          })
        ).statusCode,
        200,
      );
      const [run] = await runs(t, tenant.headers, project.id);
      assert.equal(run.status, 'applied');
      assert.deepEqual(run.result.documents, []);
      const [memoId] = Object.values(await importedIds(t, tenant.headers, project.id));
      assert.ok(!(await documentOf(t, tenant.headers, memoId!)).tags.includes('hijacked'));
    });

    it('batch agents run for every batch_size documents and for the rest when the import ends; completion agents once over all', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const { project, agents } = await projectWith(
        t,
        tenant.headers,
        { 'a/invoice.txt': INVOICE, 'a/contract.txt': CONTRACT, 'b/memo.txt': MEMO },
        [
          { agent_type: 'ai_summarize', phase: 'batch', batch_size: 2, auto_approve: true, config: { max_length: 40 } },
          {
            agent_type: 'ai_extract',
            phase: 'completion',
            auto_approve: true,
            config: { extraction_schema: { invoice_number: 'string', vendor: 'string' }, metadata_key: 'extracted' },
          },
        ],
      );
      await scanAndImport(t, tenant.headers, project.id);
      const done = await settledRuns(t, tenant.headers, project.id, 3);
      const batches = done.filter((r) => r.agent_id === agents[0].id).sort((a, b) => a.scope.localeCompare(b.scope));
      assert.deepEqual(
        batches.map((r) => [r.scope, r.document_ids.length, r.status]),
        [
          ['batch:1', 2, 'applied'],
          ['batch:2', 1, 'applied'],
        ],
      );
      const ids = await importedIds(t, tenant.headers, project.id);
      const all = new Set(Object.values(ids));
      assert.deepEqual(new Set(batches.flatMap((r) => r.document_ids)), all);
      for (const id of all) {
        const doc = await documentOf(t, tenant.headers, id);
        assert.ok(doc.ai_summary.length <= 40, doc.ai_summary);
      }
      const [completion] = done.filter((r) => r.agent_id === agents[1].id);
      assert.equal(completion.scope, 'completion');
      assert.deepEqual(new Set(completion.document_ids), all);
      assert.equal(completion.status, 'applied');
      const invoice = await documentOf(t, tenant.headers, ids['invoice.txt']!);
      assert.deepEqual(invoice.metadata.extracted, { invoice_number: 'INV-2041', vendor: 'Acme Corporation' });
      // The memo has none of the fields: nothing merged into it.
      assert.equal((await documentOf(t, tenant.headers, ids['memo.txt']!)).metadata.extracted, undefined);
    });

    it('workflow agents start the workflow for the documents, at once or on approval', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const create = await t.app.inject({
        method: 'POST',
        url: '/api/v1/dag/workflows',
        headers: tenant.headers,
        payload: {
          name: 'Review imports',
          nodes: [{ id: 'echo', type: 'transform', config: { expression: '$trigger' } }],
        },
      });
      assert.equal(create.statusCode, 201, create.body);
      const workflowId = create.json().id;
      assert.equal(
        (
          await t.app.inject({
            method: 'PUT',
            url: `/api/v1/dag/workflows/${workflowId}`,
            headers: tenant.headers,
            payload: { status: 'active' },
          })
        ).statusCode,
        200,
      );
      const { project, agents } = await projectWith(t, tenant.headers, { 'invoice.txt': INVOICE, 'memo.txt': MEMO }, [
        { agent_type: 'workflow', phase: 'post-import', auto_approve: true, config: { workflow_id: workflowId } },
        { agent_type: 'workflow', phase: 'completion', config: { workflow_id: workflowId } },
      ]);
      await scanAndImport(t, tenant.headers, project.id);
      const done = await settledRuns(t, tenant.headers, project.id, 3);
      const started = done.filter((r) => r.agent_id === agents[0].id);
      assert.equal(started.length, 2);
      for (const run of started) {
        assert.equal(run.status, 'applied', JSON.stringify(run));
        const execution = (
          await t.app.inject({ url: `/api/v1/dag/executions/${run.result.execution_id}`, headers: tenant.headers })
        ).json();
        assert.equal(execution.trigger_type, 'import_agent');
        assert.equal(execution.trigger_data.document_id, run.document_ids[0]);
        assert.equal(execution.trigger_data.project_id, project.id);
      }
      const [completion] = done.filter((r) => r.agent_id === agents[1].id);
      assert.equal(completion.status, 'awaiting_approval');
      assert.equal(completion.document_ids.length, 2);
      const [task] = await agentTasks(t, tenant.headers);
      assert.equal(task.source_ref, completion.id);
      assert.equal(
        (
          await t.app.inject({
            method: 'POST',
            url: `/api/v1/dag/tasks/${task.id}/complete`,
            headers: tenant.headers,
            payload: { decision: 'approved' },
          })
        ).statusCode,
        200,
      );
      const [applied] = await runs(t, tenant.headers, project.id, `&agent_id=${agents[1].id}`);
      assert.equal(applied.status, 'applied');
      const execution = (
        await t.app.inject({ url: `/api/v1/dag/executions/${applied.result.execution_id}`, headers: tenant.headers })
      ).json();
      assert.deepEqual(new Set(execution.trigger_data.document_ids), new Set(completion.document_ids));
    });

    it('an approval task expires per on_timeout; a paused workflow fails the run, not the decision', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const create = await t.app.inject({
        method: 'POST',
        url: '/api/v1/dag/workflows',
        headers: tenant.headers,
        payload: { name: 'Later paused', nodes: [{ id: 'echo', type: 'transform', config: { expression: '1' } }] },
      });
      const workflowId = create.json().id;
      assert.equal(
        (
          await t.app.inject({
            method: 'PUT',
            url: `/api/v1/dag/workflows/${workflowId}`,
            headers: tenant.headers,
            payload: { status: 'active' },
          })
        ).statusCode,
        200,
      );
      const { project, agents } = await projectWith(t, tenant.headers, { 'memo.txt': MEMO }, [
        {
          agent_type: 'ai_tag',
          phase: 'post-import',
          config: {
            timeout_hours: 0.0003,
            on_timeout: 'approve',
            assignee_type: 'user',
            assignee_value: tenant.ownerId,
          },
        },
        { agent_type: 'workflow', phase: 'post-import', config: { workflow_id: workflowId } },
      ]);
      await scanAndImport(t, tenant.headers, project.id);
      // The tag proposal expires after ~1 s and is applied as on_timeout says.
      const tagRun = await waitFor(
        async () =>
          (await runs(t, tenant.headers, project.id, `&agent_id=${agents[0].id}`)).find((r) => r.status === 'applied'),
        'the expired proposal applied',
        30_000,
      );
      const memoId = tagRun.document_ids[0];
      const doc = await documentOf(t, tenant.headers, memoId);
      for (const tag of tagRun.proposal.documents[0].tags)
        assert.ok(doc.tags.map((x: string) => x.toLowerCase()).includes(tag.toLowerCase()));
      const expired = await t.app.inject({ url: `/api/v1/dag/tasks/${tagRun.task_id}`, headers: tenant.headers });
      assert.equal(expired.json().status, 'expired');

      assert.equal(
        (
          await t.app.inject({
            method: 'PUT',
            url: `/api/v1/dag/workflows/${workflowId}`,
            headers: tenant.headers,
            payload: { status: 'paused' },
          })
        ).statusCode,
        200,
      );
      const [flowTask] = await agentTasks(t, tenant.headers);
      const decided = await t.app.inject({
        method: 'POST',
        url: `/api/v1/dag/tasks/${flowTask.id}/complete`,
        headers: tenant.headers,
        payload: { decision: 'approved' },
      });
      assert.equal(decided.statusCode, 200, decided.body);
      const [failed] = await runs(t, tenant.headers, project.id, `&agent_id=${agents[1].id}`);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /could not start.*paused/);
    });

    it('checks agent configs, keeps another tenant out of agents, runs and tasks, and withdraws tasks with their project', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const project = await createProject(t, tenant.headers, {});
      const post = (payload: Json, headers = tenant.headers) =>
        t.app.inject({ method: 'POST', url: `${BASE}/${project.id}/agents`, headers, payload });
      const fieldOf = (res: Json) => res.json().details?.fields?.map((f: Json) => f.field) ?? res.json().details;
      const noCategories = await post({ agent_type: 'ai_classify', phase: 'post-import' });
      assertError(noCategories, 400, 'validation_error');
      assert.match(JSON.stringify(fieldOf(noCategories)), /config\.categories/);
      assertError(
        await post({
          agent_type: 'ai_extract',
          phase: 'completion',
          config: { extraction_schema: { total: 'colour' } },
        }),
        400,
        'validation_error',
      );
      assertError(
        await post({ agent_type: 'ai_tag', phase: 'post-import', config: { max_tags: 0 } }),
        400,
        'validation_error',
      );
      assertError(
        await post({ agent_type: 'ai_tag', phase: 'post-import', config: { assignee_type: 'team' } }),
        400,
        'validation_error',
      );
      assertError(await post({ agent_type: 'workflow', phase: 'completion' }), 400, 'validation_error');
      assertError(
        await post({ agent_type: 'workflow', phase: 'completion', config: { workflow_id: 'missing' } }),
        404,
        'workflow_not_found',
      );

      const other = await createTenant(t);
      assertError(
        await t.app.inject({ url: `${BASE}/${project.id}/agents`, headers: other.headers }),
        404,
        'not_found',
      );
      assertError(
        await t.app.inject({ url: `${BASE}/${project.id}/agent-runs`, headers: other.headers }),
        404,
        'not_found',
      );
      assertError(await post({ agent_type: 'ai_tag', phase: 'post-import' }, other.headers), 404, 'not_found');

      const { project: imported } = await projectWith(t, tenant.headers, { 'memo.txt': MEMO }, [
        { agent_type: 'ai_tag', phase: 'post-import' },
      ]);
      await scanAndImport(t, tenant.headers, imported.id);
      await settledRuns(t, tenant.headers, imported.id, 1);
      const [task] = await agentTasks(t, tenant.headers);
      assert.equal((await agentTasks(t, other.headers)).length, 0);
      assertError(
        await t.app.inject({ url: `/api/v1/dag/tasks/${task.id}`, headers: other.headers }),
        404,
        'task_not_found',
      );
      assertError(
        await t.app.inject({
          method: 'POST',
          url: `/api/v1/dag/tasks/${task.id}/complete`,
          headers: other.headers,
          payload: { decision: 'approved' },
        }),
        404,
        'task_not_found',
      );
      // Deleting the project takes its waiting proposals out of the inbox.
      assert.equal(
        (await t.app.inject({ method: 'DELETE', url: `${BASE}/${imported.id}`, headers: tenant.headers })).statusCode,
        200,
      );
      assert.equal((await agentTasks(t, tenant.headers)).length, 0);
      assert.equal(
        (await t.app.inject({ url: `/api/v1/dag/tasks/${task.id}`, headers: tenant.headers })).json().status,
        'expired',
      );
      const free = await createTenant(t, { tier: 'pro' });
      assertError(
        await t.app.inject({ url: `${BASE}/${project.id}/agents`, headers: free.headers }),
        403,
        'tier_limit_exceeded',
      );
    });
  },
  { worker: true, env: driveEnv(drive) },
);
