import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant, type TestTenant } from '../../support/fixtures.ts';
import { workflowApi } from './helpers.ts';

/**
 * Issue 26 item 1: user-written expressions run in the sandbox under a time, memory, input and
 * result limit; a runaway fails its node with `expression_limit_exceeded` naming the limit, and the
 * service keeps answering meanwhile. Limits are set low here so each test is quick.
 */
const LIMITS = {
  EXPRESSION_TIMEOUT_MS: '5000',
  EXPRESSION_MEMORY_MB: '48',
  EXPRESSION_MAX_INPUT_BYTES: '65536',
  EXPRESSION_MAX_RESULT_BYTES: '65536',
};

describeEachDialect(
  'expression limits',
  (ctx) => {
    let tenant: TestTenant;
    const api = workflowApi(ctx, () => tenant.headers);
    const transform = (expression: string) => ({
      name: 'Runaway',
      nodes: [{ id: 'calc', type: 'transform', config: { expression } }],
    });
    const condition = (expression: string) => ({
      name: 'Check',
      nodes: [{ id: 'check', type: 'condition', config: { expression } }],
    });
    /** Runs a one-node workflow to its end and answers the finished execution. */
    const runOnce = async (definition: unknown, triggerData: unknown = {}) =>
      api.finished(await api.run(await api.create(definition), triggerData), 60_000);

    before(async () => {
      tenant = await createTenant(ctx(), { tier: 'team' });
      // The sandbox's first process starts here, so later timings measure evaluations, not a cold start.
      assert.equal((await runOnce(transform('1 + 1'))).final_output, 2);
    });

    it('a recursion that would run for minutes is stopped at the time limit; the API answers meanwhile', async () => {
      const execId = await api.run(
        await api.create(transform('( $f := function($x){ $x > 0 ? $f($x - 1) : 0 }; $f(100000000) )')),
      );
      // While it runs, the event loop serves requests: health and an authenticated read.
      const slowest = { healthz: 0, list: 0 };
      const deadline = Date.now() + 3_000;
      while (Date.now() < deadline) {
        let started = performance.now();
        assert.equal((await ctx().app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
        slowest.healthz = Math.max(slowest.healthz, performance.now() - started);
        started = performance.now();
        assert.equal((await api.call('GET', '/dag/workflows')).statusCode, 200);
        slowest.list = Math.max(slowest.list, performance.now() - started);
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(
        slowest.healthz < 1_000 && slowest.list < 1_000,
        `slowest answers while the expression ran: ${JSON.stringify(slowest)} ms`,
      );
      const failed = await api.finished(execId, 60_000);
      assert.equal(failed.status, 'failed');
      assert.equal(failed.failed_node_id, 'calc');
      assert.match(
        failed.node_results.calc.error,
        /^Node "calc": expression ".*" failed: expression_limit_exceeded: time limit of 5000 ms reached/,
      );
      // The stopped process was replaced: the next expression runs as usual.
      assert.equal((await runOnce(transform('$sum([1, 2, 3])'))).final_output, 6);
    });

    it('an expression that fills the heap is stopped at the memory limit, the service unharmed', async () => {
      const failed = await runOnce(transform('$count([1..9999999])'));
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /expression_limit_exceeded: memory limit of 48 MB reached/);
      // The issue's own expression: stopped by one limit or the other, never by the process dying.
      const sorted = await runOnce(transform('$count($sort([1..5000000], function($a,$b){$a<$b}))'));
      assert.equal(sorted.status, 'failed');
      assert.match(sorted.error, /expression_limit_exceeded: (memory limit of 48 MB|time limit of 5000 ms) reached/);
      assert.equal((await ctx().app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    });

    it('an input larger than the input limit is refused before any evaluation', async () => {
      const failed = await runOnce(condition('size(trigger.text) > 0'), { text: 'x'.repeat(70_000) });
      assert.equal(failed.status, 'failed');
      assert.match(
        failed.error,
        /expression_limit_exceeded: input size limit of 65536 bytes exceeded \(the input is \d+ bytes\)/,
      );
    });

    it('a result larger than the result limit fails the node', async () => {
      const failed = await runOnce(transform('$pad("", 100000, "x")'));
      assert.equal(failed.status, 'failed');
      assert.match(
        failed.error,
        /expression_limit_exceeded: result size limit of 65536 bytes exceeded \(the result is 100002 bytes\)/,
      );
    });

    it('text built from {{...}} references is bounded by the result limit too', async () => {
      const config = { name: 'x', value: '{{trigger.text}}'.repeat(10) };
      const failed = await runOnce(
        { name: 'Refs', nodes: [{ id: 'v', type: 'set_variable', config }] },
        { text: 'y'.repeat(10_000) },
      );
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /expression_limit_exceeded: result size limit of 65536 bytes exceeded/);
    });

    it('CEL matches goes through RE2: the catastrophic pattern answers at once', async () => {
      const done = await runOnce(condition('trigger.s.matches("(a+)+$")'), { s: `${'a'.repeat(30)}!` });
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.deepEqual(done.node_results.check.output, { result: false });
      assert.deepEqual(
        (await runOnce(condition('trigger.s.matches("^a+!$")'), { s: 'aaa!' })).node_results.check.output,
        { result: true },
      );
      // RE2 syntax: no backreferences (the node says why).
      const refused = await runOnce(condition('trigger.s.matches("(a)\\\\1")'), { s: 'aa' });
      assert.equal(refused.status, 'failed');
      assert.match(refused.error, /Invalid regular expression/);
    });

    it('JSONata regexes go through RE2 as well', async () => {
      const done = await runOnce(transform('$count($match($trigger.s, /(a+)+$/))'), { s: `${'a'.repeat(5_000)}!` });
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal(done.final_output, 0);
      assert.equal((await runOnce(transform('$replace("a-b-c", /-/, "+")'))).final_output, 'a+b+c');
    });

    it('nested CEL maps that grow with the cube of the list hit a limit', async () => {
      const list = Array.from({ length: 300 }, (_, i) => i);
      const failed = await runOnce(
        condition('trigger.l.map(a, trigger.l.map(b, trigger.l.map(c, a + b + c))).size() > 0'),
        { l: list },
      );
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /expression_limit_exceeded: (time limit of 5000 ms|memory limit of 48 MB) reached/);
    });

    it('run_if runs in the sandbox: false skips the node, a runaway fails the execution naming it', async () => {
      const skipped = await runOnce(
        {
          name: 'Gate',
          nodes: [
            { id: 'first', type: 'transform', config: { expression: '1' } },
            {
              id: 'gated',
              type: 'transform',
              depends_on: ['first'],
              run_if: 'trigger.go',
              config: { expression: '2' },
            },
            { id: 'after', type: 'transform', depends_on: ['gated'], config: { expression: '3' } },
          ],
        },
        { go: false },
      );
      assert.equal(skipped.status, 'completed', JSON.stringify(skipped));
      assert.equal(skipped.node_results.gated.status, 'skipped');
      assert.equal(skipped.node_results.gated.reason, 'run_if is false');
      assert.equal(skipped.node_results.after.status, 'skipped');

      const list = Array.from({ length: 300 }, (_, i) => i);
      const failed = await runOnce(
        {
          name: 'Runaway gate',
          nodes: [
            {
              id: 'gated',
              type: 'transform',
              run_if: 'trigger.l.map(a, trigger.l.map(b, trigger.l.map(c, a))).size() > 0',
              config: { expression: '1' },
            },
          ],
        },
        { l: list },
      );
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /^Node "gated": run_if ".*" failed: expression_limit_exceeded/);
    });

    it('a filter evaluates its condition over all items in one sandbox call, with the same results as before', async () => {
      const done = await runOnce(
        {
          name: 'Filter',
          nodes: [
            {
              id: 'big',
              type: 'filter',
              config: { items: '{{trigger.items}}', condition: 'item.amount > 10 && index != 0' },
            },
          ],
        },
        { items: [{ amount: 50 }, { amount: 5 }, { amount: 20 }, { amount: 11 }] },
      );
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.deepEqual(done.final_output, [{ amount: 20 }, { amount: 11 }]);
    });
  },
  { worker: true, env: LIMITS },
);
