import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { uploadOk } from '../documents/helpers.ts';
import { waitFor } from '../../jobs/helpers.ts';
import { signWebhookBody } from '../../../src/lib/webhook-signature.ts';
import { describeEachDialect, type TestApp } from '../../support/app.ts';
import { assertError, createTenant, type LoggedInUser, loginAs, type TestTenant } from '../../support/fixtures.ts';
import { workflowApi } from './helpers.ts';

// Issue 26: a workflow execution acts as a principal (docs/workflows.md "Who may do what"). Its
// nodes read documents as that principal; workflows and executions belong to their owners.

const SECRET_TEXT = 'Board minutes. The merger with Globex closes on 2026-05-01 at a price of 41 dollars a share.';
const MEMBER_TEXT = 'Team notes. The offsite is planned for June in Lisbon with twelve people attending.';
const MISSING_ID = '01a00000-0000-7000-8000-000000000000';
const HOOK_SECRET = 'hook-secret-0123456789';

/** Every AI node type over `{{trigger.document_id}}`, each failing on its own (on_failure continue). */
const EVERY_AI_NODE = {
  name: 'Reads a document',
  error_handling: { on_failure: 'continue' },
  nodes: [
    { id: 'summarize', type: 'ai_summarize', timeout_seconds: 60, config: { document_id: '{{trigger.document_id}}' } },
    { id: 'analyze', type: 'ai_analyze', timeout_seconds: 60, config: { document_id: '{{trigger.document_id}}' } },
    {
      id: 'extract',
      type: 'ai_extract',
      timeout_seconds: 60,
      config: { document_id: '{{trigger.document_id}}', extraction_schema: { price: 'number' } },
    },
    {
      id: 'classify',
      type: 'ai_classify',
      timeout_seconds: 60,
      config: { document_id: '{{trigger.document_id}}', categories: [{ name: 'minutes' }, { name: 'notes' }] },
    },
    {
      id: 'qa',
      type: 'ai_qa',
      timeout_seconds: 60,
      config: { document_id: '{{trigger.document_id}}', questions: ['When does the merger close?'] },
    },
    {
      id: 'custom',
      type: 'ai_custom',
      timeout_seconds: 60,
      config: { document_id: '{{trigger.document_id}}', prompt: 'What is the price?' },
    },
  ],
};
const AI_NODES = EVERY_AI_NODE.nodes.map((n) => n.id);

async function processed(t: TestApp, headers: Record<string, string>, filename: string, text: string): Promise<string> {
  const id = await uploadOk(t, headers, { filename, content: Buffer.from(text) });
  await waitFor(
    async () =>
      (await t.container.database.db.selectFrom('documents').select('status').where('id', '=', id).executeTakeFirst())
        ?.status === 'completed',
    `${filename} to be processed`,
    30_000,
  );
  return id;
}

describeEachDialect(
  'workflow access: executions act as their principal',
  (ctx) => {
    let tenant: TestTenant;
    let admin: LoggedInUser;
    let member: LoggedInUser;
    let secretDoc: string;
    let memberDoc: string;
    const api = workflowApi(ctx, () => tenant.headers);
    const hook = (workflowId: string, payload: Record<string, unknown>) => {
      const body = JSON.stringify(payload);
      return ctx().app.inject({
        method: 'POST',
        url: `/api/v1/dag/hooks/${workflowId}`,
        payload: body,
        headers: { 'content-type': 'application/json', 'x-service-signature': signWebhookBody(HOOK_SECRET, body) },
      });
    };

    before(async () => {
      tenant = await createTenant(ctx(), { tier: 'enterprise' });
      admin = await loginAs(ctx(), tenant, 'admin');
      member = await loginAs(ctx(), tenant, 'member');
      secretDoc = await processed(ctx(), admin.headers, 'minutes.txt', SECRET_TEXT);
      memberDoc = await processed(ctx(), member.headers, 'notes.txt', MEMBER_TEXT);
    });

    it('a member’s workflow cannot read a document not shared with them: every AI node fails not_found, as for a missing one', async () => {
      assertError(await api.call('GET', `/documents/${secretDoc}`, undefined, member.headers), 404, 'not_found');
      const workflow = await api.create(EVERY_AI_NODE);
      // The member's own workflow: created as the member.
      const own = await api.call('POST', '/dag/workflows', EVERY_AI_NODE, member.headers);
      assert.equal(own.statusCode, 201, own.body);
      const mine = own.json().id as string;
      const run = async (documentId: string) => {
        const res = await api.call(
          'POST',
          `/dag/workflows/${mine}/execute`,
          { trigger_data: { document_id: documentId } },
          member.headers,
        );
        assert.equal(res.statusCode, 201, res.body);
        await api.finished(res.json().execution_id, 60_000);
        const got = await api.call('GET', `/dag/executions/${res.json().execution_id}`, undefined, member.headers);
        assert.equal(got.statusCode, 200, got.body);
        return got;
      };

      const hidden = await run(secretDoc);
      const missing = await run(MISSING_ID);
      for (const node of AI_NODES) {
        const result = hidden.json().node_results[node];
        assert.equal(result.status, 'failed', `${node}: ${JSON.stringify(result)}`);
        assert.equal(result.output, null);
        assert.equal(result.error, `Node "${node}": not_found: document "${secretDoc}" not found`);
        // Exactly the answer for a document that does not exist: nothing tells the two apart.
        assert.equal(missing.json().node_results[node].error.replace(MISSING_ID, secretDoc), result.error);
      }
      // The execution also shows the definition it ran, whose question names the merger: that is the
      // member's own text, so the check reads everything but it.
      const { definition: _ownText, ...outcome } = hidden.json();
      const shown = JSON.stringify(outcome);
      assert.ok(
        !shown.includes('Globex') && !shown.includes('merger'),
        'no text of the hidden document in the execution',
      );

      // The member's own document reads fine through the same workflow.
      const readable = (await run(memberDoc)).json();
      for (const node of AI_NODES)
        assert.equal(readable.node_results[node].status, 'completed', `${node}: ${readable.node_results[node].error}`);

      // A share is what the node checks: shared for viewing, the same workflow reads it.
      const share = await api.call(
        'POST',
        `/documents/${secretDoc}/share`,
        { user_id: member.userId, permission: 'view' },
        admin.headers,
      );
      assert.equal(share.statusCode, 201, share.body);
      const shared = (await run(secretDoc)).json();
      for (const node of AI_NODES)
        assert.equal(shared.node_results[node].status, 'completed', `${node}: ${shared.node_results[node].error}`);
      const shareId = share.json().share_id as string;
      assert.equal(
        (await api.call('DELETE', `/documents/${secretDoc}/shares/${shareId}`, undefined, admin.headers)).statusCode,
        200,
      );

      // An administrator's run of the tenant's workflow reads everything, and runs as the administrator.
      const byAdmin = await api.call(
        'POST',
        `/dag/workflows/${workflow}/execute`,
        { trigger_data: { document_id: secretDoc } },
        admin.headers,
      );
      assert.equal(byAdmin.statusCode, 201, byAdmin.body);
      const adminRun = await api.finished(byAdmin.json().execution_id, 60_000);
      assert.equal(adminRun.node_results.summarize.status, 'completed', adminRun.node_results.summarize.error);
      const row = await ctx()
        .container.database.db.selectFrom('workflow_executions')
        .select('principal')
        .where('id', '=', byAdmin.json().execution_id)
        .executeTakeFirstOrThrow();
      assert.equal(row.principal, `user:${admin.userId}`);
    });

    it('an execution started by a trigger runs as the workflow’s owner', async () => {
      const res = await api.call(
        'POST',
        '/dag/workflows',
        {
          name: 'Hooked',
          trigger: { type: 'webhook', conditions: { secret: HOOK_SECRET } },
          nodes: [
            {
              id: 'summarize',
              type: 'ai_summarize',
              timeout_seconds: 60,
              config: { document_id: '{{trigger.document_id}}' },
            },
          ],
        },
        member.headers,
      );
      assert.equal(res.statusCode, 201, res.body);
      const id = res.json().id as string;
      assert.equal(
        (await api.call('PUT', `/dag/workflows/${id}`, { status: 'active' }, member.headers)).statusCode,
        200,
      );

      const hidden = await hook(id, { document_id: secretDoc });
      assert.equal(hidden.statusCode, 202, hidden.body);
      const failed = await api.finished(hidden.json().execution_id, 60_000);
      assert.equal(
        failed.node_results.summarize.error,
        `Node "summarize": not_found: document "${secretDoc}" not found`,
      );
      // The owner sees it (it runs as them), another member does not.
      assert.equal(
        (await api.call('GET', `/dag/executions/${hidden.json().execution_id}`, undefined, member.headers)).statusCode,
        200,
      );
      const other = await loginAs(ctx(), tenant, 'member', { email: `other-${tenant.subdomain}@example.com` });
      assertError(
        await api.call('GET', `/dag/executions/${hidden.json().execution_id}`, undefined, other.headers),
        404,
        'execution_not_found',
      );

      const visible = await hook(id, { document_id: memberDoc });
      const done = await api.finished(visible.json().execution_id, 60_000);
      assert.equal(done.node_results.summarize.status, 'completed', done.node_results.summarize.error);
    });

    it('a document trigger fires only for documents the workflow’s owner may read', async () => {
      const res = await api.call(
        'POST',
        '/dag/workflows',
        {
          name: 'On upload',
          trigger: { type: 'document_upload', conditions: { file_types: ['txt'] } },
          nodes: [
            {
              id: 'summarize',
              type: 'ai_summarize',
              timeout_seconds: 60,
              config: { document_id: '{{trigger.document_id}}' },
            },
          ],
        },
        member.headers,
      );
      assert.equal(res.statusCode, 201, res.body);
      const id = res.json().id as string;
      assert.equal(
        (await api.call('PUT', `/dag/workflows/${id}`, { status: 'active' }, member.headers)).statusCode,
        200,
      );
      const db = ctx().container.database.db;
      const fired = (documentId: string) =>
        db
          .selectFrom('workflow_executions')
          .select(['id', 'principal'])
          .where('trigger_key', '=', `upload:${id}:${documentId}`)
          .executeTakeFirst();

      const adminOnly = await processed(
        ctx(),
        admin.headers,
        'salaries.txt',
        'Salaries of the board for the coming year, by name and amount.',
      );
      const own = await processed(
        ctx(),
        member.headers,
        'todo.txt',
        'A list of things to do before the offsite in June.',
      );
      await waitFor(async () => (await fired(own)) !== undefined, 'the member’s upload to start the workflow', 30_000);
      assert.equal((await fired(own))?.principal, `user:${member.userId}`);
      // Every event of the tenant has reached the triggers (the administrator's upload among them), and that one started nothing.
      const publishing = () =>
        db
          .selectFrom('jobs')
          .select('id')
          .where('kind', '=', 'events.publish')
          .where('tenant_id', '=', tenant.tenantId)
          .where('state', 'in', ['available', 'running'])
          .executeTakeFirst();
      await waitFor(async () => (await publishing()) === undefined, 'the tenant’s events to be published', 30_000);
      assert.equal(await fired(adminOnly), undefined, 'the trigger must not fire for a document its owner cannot read');
    });

    it('a disabled owner’s triggered execution cannot read anything', async () => {
      const leaver = await loginAs(ctx(), tenant, 'member', { email: `leaver-${tenant.subdomain}@example.com` });
      const leaverDoc = await processed(
        ctx(),
        leaver.headers,
        'leaver.txt',
        'Handover notes for the team before leaving the company.',
      );
      const res = await api.call(
        'POST',
        '/dag/workflows',
        {
          name: 'Leaver',
          trigger: { type: 'webhook', conditions: { secret: HOOK_SECRET } },
          nodes: [
            {
              id: 'summarize',
              type: 'ai_summarize',
              timeout_seconds: 60,
              config: { document_id: '{{trigger.document_id}}' },
            },
          ],
        },
        leaver.headers,
      );
      const id = res.json().id as string;
      assert.equal(
        (await api.call('PUT', `/dag/workflows/${id}`, { status: 'active' }, leaver.headers)).statusCode,
        200,
      );
      const disabled = await ctx().app.inject({
        method: 'PATCH',
        url: `/api/v1/users/${leaver.userId}`,
        headers: tenant.headers,
        payload: { status: 'disabled' },
      });
      assert.equal(disabled.statusCode, 200, disabled.body);
      const started = await hook(id, { document_id: leaverDoc });
      assert.equal(started.statusCode, 202, started.body);
      const done = await api.finished(started.json().execution_id, 60_000);
      assert.equal(done.node_results.summarize.status, 'failed');
      assert.match(
        done.node_results.summarize.error,
        /^Node "summarize": forbidden: the execution cannot act: the user .* is disabled or deleted$/,
      );
    });
  },
  { worker: true },
);

describeEachDialect(
  'workflow access: owners of workflows, executions and tasks',
  (ctx) => {
    let tenant: TestTenant;
    let admin: LoggedInUser;
    let alice: LoggedInUser;
    let bob: LoggedInUser;
    let viewer: LoggedInUser;
    const api = workflowApi(ctx, () => tenant.headers);
    /** A workflow that waits (so its execution stays running) then asks `assignee` for an approval. */
    const waiting = (name: string, assignee: string) => ({
      name,
      nodes: [
        { id: 'wait', type: 'delay', timeout_seconds: 5, config: { seconds: 3600 } },
        {
          id: 'ok',
          type: 'human_approval',
          depends_on: ['wait'],
          config: { assignee_type: 'user', assignee_value: assignee, title: 'Approve' },
        },
      ],
    });
    const approval = (name: string, assignee: string) => ({
      name,
      nodes: [
        {
          id: 'ok',
          type: 'human_approval',
          config: { assignee_type: 'user', assignee_value: assignee, title: `Approve ${name}`, timeout_hours: 1 },
        },
      ],
    });
    const create = async (as: LoggedInUser, body: unknown) => {
      const res = await api.call('POST', '/dag/workflows', body, as.headers);
      assert.equal(res.statusCode, 201, res.body);
      return res.json().id as string;
    };
    const execute = async (as: LoggedInUser, id: string) => {
      const res = await api.call('POST', `/dag/workflows/${id}/execute`, {}, as.headers);
      assert.equal(res.statusCode, 201, res.body);
      return res.json().execution_id as string;
    };
    const ids = (res: { json(): { data: { id: string }[] } }) => res.json().data.map((r) => r.id);

    before(async () => {
      tenant = await createTenant(ctx(), { tier: 'enterprise' });
      admin = await loginAs(ctx(), tenant, 'admin');
      alice = await loginAs(ctx(), tenant, 'member', { email: `alice-${tenant.subdomain}@example.com` });
      // A custom role gives no reach over other people's workflows.
      bob = await loginAs(ctx(), tenant, 'member', {
        email: `bob-${tenant.subdomain}@example.com`,
        roles: ['finance_manager'],
      });
      viewer = await loginAs(ctx(), tenant, 'viewer');
    });

    it('members see and change only their own workflows; owners and admins all; viewers none', async () => {
      const ofAdmin = await create(admin, waiting('admin’s', admin.userId));
      const ofAlice = await create(alice, waiting('alice’s', alice.userId));
      const ofKey = await api.create(waiting('the key’s', admin.userId));

      for (const other of [ofAdmin, ofAlice, ofKey]) {
        assertError(
          await api.call('GET', `/dag/workflows/${other}`, undefined, bob.headers),
          404,
          'workflow_not_found',
        );
        assertError(
          await api.call('PUT', `/dag/workflows/${other}`, { name: 'pwned' }, bob.headers),
          404,
          'workflow_not_found',
        );
        assertError(
          await api.call('POST', `/dag/workflows/${other}/validate`, undefined, bob.headers),
          404,
          'workflow_not_found',
        );
        assertError(
          await api.call('POST', `/dag/workflows/${other}/execute`, {}, bob.headers),
          404,
          'workflow_not_found',
        );
        assertError(
          await api.call('DELETE', `/dag/workflows/${other}`, undefined, bob.headers),
          404,
          'workflow_not_found',
        );
      }
      assertError(
        await api.call('GET', `/dag/workflows/${ofAdmin}`, undefined, alice.headers),
        404,
        'workflow_not_found',
      );
      assert.deepEqual(ids(await api.call('GET', '/dag/workflows', undefined, alice.headers)), [ofAlice]);
      assert.equal((await api.call('GET', '/dag/workflows', undefined, bob.headers)).json().total, 0);
      assert.equal(
        (await api.call('PUT', `/dag/workflows/${ofAlice}`, { description: 'mine' }, alice.headers)).statusCode,
        200,
      );

      // Owners, admins and API keys reach every workflow; an admin's change keeps the owner.
      const owner = await loginAs(ctx(), tenant, 'owner');
      for (const who of [admin.headers, owner.headers, tenant.headers]) {
        assert.deepEqual(
          new Set(ids(await api.call('GET', '/dag/workflows', undefined, who))),
          new Set([ofAdmin, ofAlice, ofKey]),
        );
        assert.equal((await api.call('GET', `/dag/workflows/${ofAlice}`, undefined, who)).statusCode, 200);
      }
      assert.equal(
        (await api.call('PUT', `/dag/workflows/${ofAlice}`, { description: 'reviewed' }, admin.headers)).statusCode,
        200,
      );
      assert.equal(
        (await api.call('GET', `/dag/workflows/${ofAlice}`, undefined, alice.headers)).json().description,
        'reviewed',
      );

      // Viewers: nothing to list or read; 403 on every change, whatever the id.
      assert.deepEqual((await api.call('GET', '/dag/workflows', undefined, viewer.headers)).json().data, []);
      assertError(
        await api.call('GET', `/dag/workflows/${ofAlice}`, undefined, viewer.headers),
        404,
        'workflow_not_found',
      );
      assertError(
        await api.call('POST', '/dag/workflows', waiting('viewer’s', viewer.userId), viewer.headers),
        403,
        'forbidden',
      );
      assertError(await api.call('PUT', `/dag/workflows/${ofAlice}`, { name: 'x' }, viewer.headers), 403, 'forbidden');
      assertError(await api.call('POST', `/dag/workflows/${ofAlice}/execute`, {}, viewer.headers), 403, 'forbidden');
      assertError(await api.call('DELETE', `/dag/workflows/${ofAlice}`, undefined, viewer.headers), 403, 'forbidden');

      // Everything above left the workflows as they were.
      const stored = await ctx()
        .container.database.db.selectFrom('workflows')
        .select(['id', 'name', 'owner'])
        .where('tenant_id', '=', tenant.tenantId)
        .execute();
      const byId = new Map(stored.map((w) => [w.id, w]));
      assert.equal(byId.get(ofAdmin)?.name, 'admin’s');
      assert.equal(byId.get(ofAlice)?.owner, `user:${alice.userId}`);
      assert.equal(byId.get(ofAdmin)?.owner, `user:${admin.userId}`);
      assert.match(String(byId.get(ofKey)?.owner), /^api_key:/);
    });

    it('members see and control only executions that run as them; an admin’s run of a member’s workflow is the admin’s', async () => {
      const ofAlice = await create(alice, waiting('alice’s run', alice.userId));
      const ofAdmin = await create(admin, waiting('admin’s run', admin.userId));
      const adminRun = await execute(admin, ofAdmin);
      const aliceRun = await execute(alice, ofAlice);
      const adminRunOfAlices = await execute(admin, ofAlice);

      for (const [who, foreign] of [
        [alice, [adminRun, adminRunOfAlices]],
        [bob, [adminRun, aliceRun, adminRunOfAlices]],
        [viewer, [aliceRun]],
      ] as const) {
        for (const id of foreign) {
          assertError(
            await api.call('GET', `/dag/executions/${id}`, undefined, who.headers),
            404,
            'execution_not_found',
          );
          if (who === viewer) continue; // viewers are refused any change first (403)
          assertError(
            await api.call('POST', `/dag/executions/${id}/pause`, undefined, who.headers),
            404,
            'execution_not_found',
          );
          assertError(
            await api.call('POST', `/dag/executions/${id}/resume`, {}, who.headers),
            404,
            'execution_not_found',
          );
          assertError(
            await api.call('POST', `/dag/executions/${id}/cancel`, { reason: 'pwned' }, who.headers),
            404,
            'execution_not_found',
          );
        }
      }
      assertError(await api.call('POST', `/dag/executions/${aliceRun}/cancel`, {}, viewer.headers), 403, 'forbidden');
      assert.deepEqual(ids(await api.call('GET', '/dag/executions', undefined, alice.headers)), [aliceRun]);
      assert.deepEqual(
        ids(await api.call('GET', `/dag/executions?workflow_id=${ofAdmin}`, undefined, alice.headers)),
        [],
      );
      assert.equal((await api.call('GET', '/dag/executions', undefined, viewer.headers)).json().total, 0);

      // Alice controls her own; the admin controls anyone's.
      assert.equal(
        (await api.call('POST', `/dag/executions/${aliceRun}/pause`, undefined, alice.headers)).statusCode,
        200,
      );
      assert.equal((await api.call('POST', `/dag/executions/${aliceRun}/cancel`, {}, alice.headers)).statusCode, 200);
      const all = new Set(ids(await api.call('GET', '/dag/executions?page_size=100', undefined, admin.headers)));
      for (const id of [adminRun, aliceRun, adminRunOfAlices]) assert.ok(all.has(id));
      assert.equal((await api.call('GET', `/dag/executions/${aliceRun}`, undefined, admin.headers)).statusCode, 200);
      for (const id of [adminRun, adminRunOfAlices])
        assert.equal((await api.call('POST', `/dag/executions/${id}/cancel`, {}, admin.headers)).statusCode, 200);
      const statuses = await ctx()
        .container.database.db.selectFrom('workflow_executions')
        .select(['id', 'status'])
        .where('id', 'in', [adminRun, aliceRun, adminRunOfAlices])
        .execute();
      for (const s of statuses) assert.equal(s.status, 'cancelled');
    });

    it('tasks are seen by their assignees, the owner of their execution and administrators', async () => {
      const carol = await loginAs(ctx(), tenant, 'member', { email: `carol-${tenant.subdomain}@example.com` });
      const workflow = await create(alice, approval('expense', bob.userId));
      const execution = await execute(alice, workflow);
      const db = ctx().container.database.db;
      await waitFor(
        async () =>
          (await db
            .selectFrom('workflow_tasks')
            .select('id')
            .where('execution_id', '=', execution)
            .executeTakeFirst()) !== undefined,
        'the task',
        20_000,
      );
      const task = (
        await db
          .selectFrom('workflow_tasks')
          .select('id')
          .where('execution_id', '=', execution)
          .executeTakeFirstOrThrow()
      ).id;

      for (const who of [alice, bob, admin]) {
        assert.equal((await api.call('GET', `/dag/tasks/${task}`, undefined, who.headers)).statusCode, 200);
        assert.ok(ids(await api.call('GET', '/dag/tasks?page_size=100', undefined, who.headers)).includes(task));
      }
      for (const who of [carol, viewer]) {
        assertError(await api.call('GET', `/dag/tasks/${task}`, undefined, who.headers), 404, 'task_not_found');
        assert.ok(
          !ids(await api.call('GET', `/dag/tasks?assignee=${bob.userId}`, undefined, who.headers)).includes(task),
        );
      }
      // Contract §10: completing is for an assignee, an owner or an admin — the execution's owner is none of them.
      assertError(
        await api.call('POST', `/dag/tasks/${task}/complete`, { decision: 'approved' }, alice.headers),
        403,
        'insufficient_permissions',
      );
      assertError(
        await api.call('POST', `/dag/tasks/${task}/complete`, { decision: 'approved' }, carol.headers),
        403,
        'insufficient_permissions',
      );
      assert.equal(
        (await api.call('POST', `/dag/tasks/${task}/complete`, { decision: 'approved' }, bob.headers)).statusCode,
        200,
      );
    });
  },
  { worker: true },
);
