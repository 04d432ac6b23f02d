import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../../src/lib/ids.ts';
import { type Task, TasksRepository } from '../../../src/modules/workflows/tasks.repository.ts';
import {
  type Execution,
  type NodeRun,
  type Workflow,
  WorkflowsRepository,
} from '../../../src/modules/workflows/workflows.repository.ts';
import { availableDialects, openTestDatabase } from '../../support/databases.ts';

// The workflows module's row mapping: what a repository writes, it reads back as the same object
// (JSON columns parsed, the test-run flag a boolean, "no output" NULL), and patches change only
// the fields they name.

const TENANT = 'tenant-rows';

for (const dialect of await availableDialects()) {
  describe(`workflows rows on ${dialect}`, () => {
    let t: Awaited<ReturnType<typeof openTestDatabase>>;
    const repo = new WorkflowsRepository(dialect);
    const tasks = new TasksRepository();
    before(async () => {
      t = await openTestDatabase(dialect);
    });
    after(() => t.close());

    function workflow(now: number): Workflow {
      return {
        id: newId(now),
        tenantId: TENANT,
        name: 'Rows',
        description: 'round trip',
        status: 'draft',
        version: 1,
        trigger: { type: 'document_upload', conditions: { file_types: ['pdf'] } },
        nodes: [
          { id: 'a', type: 'condition', config: { expression: 'true' } },
          { id: 'b', type: 'end', depends_on: ['a'] },
        ],
        errorHandling: { on_failure: 'pause', notify_on_failure: ['ops@example.com'] },
        lastExecutionAt: null,
        nextRunAt: null,
        owner: { kind: 'user', userId: 'user-rows' },
        createdAt: now,
        updatedAt: now,
      };
    }

    function execution(w: Workflow, now: number): Execution {
      return {
        id: newId(now),
        tenantId: TENANT,
        workflowId: w.id,
        workflowVersion: w.version,
        workflowName: w.name,
        status: 'running',
        pausedReason: null,
        triggerType: 'manual',
        triggerData: { amount: 12.5, tags: ['a'], nested: { ok: true } },
        vars: {},
        testRun: true,
        finalOutput: null,
        error: null,
        failedNodeId: null,
        cancelReason: null,
        triggerKey: null,
        priority: 'high',
        principal: { kind: 'api_key', apiKeyId: 'key-rows' },
        startedAt: now,
        pausedAt: null,
        finishedAt: null,
        updatedAt: now,
      };
    }

    it('reads a workflow, its version, an execution and its node runs back as written', async () => {
      const db = t.database.db;
      const now = Date.now();
      const w = workflow(now);
      await repo.insertWorkflow(db, w);
      await repo.insertVersion(
        db,
        TENANT,
        w.id,
        1,
        { nodes: w.nodes, trigger: w.trigger, error_handling: w.errorHandling },
        now,
      );
      assert.deepEqual(await repo.findWorkflow(db, TENANT, w.id), w);
      assert.deepEqual(await repo.findVersion(db, TENANT, w.id, 1), {
        nodes: w.nodes,
        trigger: w.trigger,
        error_handling: w.errorHandling,
      });
      assert.deepEqual(await repo.findVersion(db, TENANT, w.id, 2), { nodes: [] }, 'a missing version has no nodes');

      const e = execution(w, now);
      assert.equal(await repo.insertExecution(db, e), true);
      assert.deepEqual(await repo.findExecution(db, TENANT, e.id), e);
      const queued: NodeRun = {
        id: newId(now),
        tenantId: TENANT,
        executionId: e.id,
        nodeId: 'a',
        status: 'queued',
        attempt: 1,
        output: null,
        error: null,
        reason: null,
        runnerJobId: null,
        checkpoint: null,
        startedAt: null,
        completedAt: null,
        updatedAt: now,
      };
      await repo.insertNodeRuns(db, [queued]);
      assert.deepEqual(await repo.nodeRuns(db, TENANT, e.id), [queued]);
      const raw = await db
        .selectFrom('workflow_node_runs')
        .select(['output', 'checkpoint'])
        .where('id', '=', queued.id)
        .executeTakeFirstOrThrow();
      assert.equal(raw.output, null, 'no output is stored as NULL');
      assert.equal(raw.checkpoint, null, 'no checkpoint is stored as NULL');
      const before = await db
        .selectFrom('workflow_executions')
        .select('priority')
        .where('id', '=', e.id)
        .executeTakeFirstOrThrow();
      assert.equal(before.priority, 'high');
    });

    it('applies patches field by field, leaving the other fields as they were', async () => {
      const db = t.database.db;
      const now = Date.now();
      const w = workflow(now);
      await repo.insertWorkflow(db, w);
      await repo.updateWorkflow(db, TENANT, w.id, { status: 'active', nodes: [], updatedAt: now + 1 });
      assert.deepEqual(await repo.findWorkflow(db, TENANT, w.id), {
        ...w,
        status: 'active',
        nodes: [],
        updatedAt: now + 1,
      });

      const e = execution(w, now);
      await repo.insertExecution(db, e);
      const finished = {
        status: 'completed' as const,
        finalOutput: { total: 3, items: [1, 2] },
        vars: { route: 'big' },
        finishedAt: now + 5,
        updatedAt: now + 5,
      };
      await repo.updateExecution(db, TENANT, e.id, finished);
      assert.deepEqual(await repo.findExecution(db, TENANT, e.id), { ...e, ...finished });

      const run: NodeRun = {
        id: newId(now),
        tenantId: TENANT,
        executionId: e.id,
        nodeId: 'b',
        status: 'running',
        attempt: 2,
        output: null,
        error: 'first try failed',
        reason: null,
        runnerJobId: 'job-1',
        checkpoint: null,
        startedAt: now,
        completedAt: null,
        updatedAt: now,
      };
      await repo.insertNodeRuns(db, [run]);
      const progress = { checkpoint: { outputs: [1, { sku: 'A' }, null] }, runnerJobId: 'job-2', updatedAt: now + 1 };
      await repo.updateNodeRun(db, TENANT, run.id, progress);
      assert.deepEqual(await repo.findNodeRun(db, TENANT, run.id), { ...run, ...progress });
      const completed = {
        status: 'completed' as const,
        output: { decision: 'approved', data: {} },
        error: null,
        checkpoint: null,
        completedAt: now + 2,
        updatedAt: now + 2,
      };
      await repo.updateNodeRun(db, TENANT, run.id, completed);
      assert.deepEqual(await repo.findNodeRun(db, TENANT, run.id), { ...run, ...progress, ...completed });
    });

    it('reads a human task back as written, and moves only a pending one', async () => {
      const db = t.database.db;
      const now = Date.now();
      const task: Task = {
        id: newId(now),
        tenantId: TENANT,
        executionId: null,
        workflowId: null,
        workflowName: 'Import "Rows"',
        nodeId: null,
        runId: null,
        taskType: 'review',
        title: 'Check the proposal',
        description: '',
        context: { documents: 2 },
        assigneeType: 'role',
        assigneeValue: 'admin',
        editableFields: ['category'],
        onTimeout: 'reject',
        escalateTo: null,
        status: 'pending',
        decision: null,
        comments: null,
        data: { category: 'invoice' },
        decidedBy: null,
        escalatedAt: null,
        createdAt: now,
        dueAt: now + 3_600_000,
        escalationAt: now + 2_700_000,
        completedAt: null,
        updatedAt: now,
        source: 'import_agent',
        sourceRef: 'run-1',
      };
      await tasks.insert(db, task);
      assert.deepEqual(await tasks.find(db, TENANT, task.id), task);
      const decided = {
        status: 'completed' as const,
        decision: 'modified',
        data: { category: 'receipt' },
        decidedBy: 'user-1',
        completedAt: now + 1,
        updatedAt: now + 1,
      };
      assert.equal(await tasks.updatePending(db, TENANT, task.id, decided), true);
      assert.deepEqual(await tasks.find(db, TENANT, task.id), { ...task, ...decided });
      assert.equal(
        await tasks.updatePending(db, TENANT, task.id, { status: 'expired', updatedAt: now + 2 }),
        false,
        'a completed task no longer moves',
      );
    });
  });
}
