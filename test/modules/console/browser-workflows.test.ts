import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildConsoleIfStale } from '../../../scripts/build-console.ts';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant, type LoggedInUser, loginAs, type TestTenant } from '../../support/fixtures.ts';
import { workflowApi } from '../workflows/helpers.ts';
import {
  assertAccessible,
  launchChromium,
  listen,
  NO_CHROMIUM,
  openConsolePage,
  screenshotFolder,
  screenshotter,
  withConsoleSession,
} from './browser.ts';

// The workflow pages of the rebuilt console (docs/console.md "Workflows"): a workflow built in the
// DAG editor (palette, connect by drag and by keyboard, per-type forms, the API's validation shown
// beside the steps, save under If-Match, test run, activate), its execution's live graph and step
// output, and the task inbox (modify with the task's form, reject), driven in Chromium.
const SHOTS = screenshotFolder('console-workflow-shots-');

describeEachDialect(
  'rebuilt web console: workflows, executions and the task inbox in Chromium',
  (ctx, dialect) => {
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let base: string;
    let tenant: TestTenant;
    let owner: LoggedInUser;
    let workflowId = '';
    let executionId = '';
    const flows = () => workflowApi(ctx, () => tenant.headers);
    const shot = screenshotter(SHOTS, dialect, () => page);
    const checkPage = (target: Page = page) => assertAccessible(target);
    const go = async (hash: string, heading: string | RegExp, target: Page = page) => {
      await target.goto(`${base}/console/${hash}`);
      await target.getByRole('heading', { name: heading, level: 1 }).waitFor();
    };
    const step = (id: string, target: Page = page) =>
      target.getByRole('group', { name: 'Workflow graph' }).locator(`button[data-node-id="${id}"]`);
    const settings = () => page.getByRole('region', { name: /^Settings of / });
    const runsAfter = (id: string) =>
      settings().getByRole('group', { name: 'Runs after' }).getByLabel(id, { exact: true });

    before(async () => {
      if (NO_CHROMIUM) return;
      await buildConsoleIfStale();
      tenant = await createTenant(ctx(), { tier: 'team' });
      owner = await loginAs(ctx(), tenant, 'owner');
      base = await listen(ctx());
      browser = await launchChromium();
      ({ context, page } = await openConsolePage(browser, { width: 1280, height: 860 }));
      await withConsoleSession(page, owner, tenant.subdomain);
    });
    after(async () => {
      await browser?.close();
    });

    it('builds a workflow in the editor: palette, drag and keyboard connect, per-type forms, the API’s errors inline, If-Match save', {
      skip: NO_CHROMIUM,
    }, async () => {
      await go('#/workflows', 'Workflows');
      await page.getByText('No workflows yet.').waitFor();
      await checkPage();
      const create = page.getByRole('form', { name: 'Create workflow' });
      await create.getByLabel('Name').fill('Invoice approval');
      await create.getByRole('button', { name: 'Create workflow' }).click();
      await page.getByRole('heading', { name: 'Invoice approval', level: 1 }).waitFor();
      workflowId = decodeURIComponent(page.url().split('#/workflow/')[1] ?? '');
      assert.ok(workflowId, 'the editor is at #/workflow/<id>');

      // Palette: a Transform, then an Approval (runs after the selected Transform), then a Transform.
      await page.getByRole('button', { name: 'Add Transform' }).click();
      await settings().getByLabel('Expression (JSONata) (required)').fill('$trigger');
      await page.getByRole('button', { name: 'Add Approval' }).click();
      assert.ok(await runsAfter('transform_1').isChecked(), 'the new step runs after the selected one');
      await page.getByRole('button', { name: 'Add Transform' }).click();
      await settings().getByLabel('Expression (JSONata) (required)').fill('"paid"');
      await runsAfter('human_approval_1').uncheck();
      assert.equal(await page.locator('.dag-edge').count(), 1, 'one edge left');

      // Connect by drag: from the approval's right edge onto transform_2.
      const port = page.locator('.dag-port[data-port="human_approval_1"]');
      const from = (await port.boundingBox())!;
      const to = (await step('transform_2').boundingBox())!;
      await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
      await page.mouse.down();
      await page.mouse.move(to.x + 20, to.y + 10, { steps: 8 });
      await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 4 });
      await page.mouse.up();
      await page.getByRole('region', { name: 'Settings of transform_2' }).waitFor();
      assert.ok(await runsAfter('human_approval_1').isChecked(), 'dragging connected the two steps');

      // Connect by keyboard: an End step, unlinked, then C on transform_2 and Enter on end_1.
      await page.getByRole('button', { name: 'Add End' }).click();
      await runsAfter('transform_2').uncheck();
      await step('transform_2').focus();
      await page.keyboard.press('c');
      await page.getByText('Connecting from “transform_2”').first().waitFor();
      await page.keyboard.press('ArrowRight');
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-node-id')), 'end_1');
      await page.keyboard.press('Enter');
      await page.getByRole('status').filter({ hasText: '“end_1” now runs after “transform_2”.' }).waitFor();
      assert.ok(await runsAfter('transform_2').isChecked(), 'the keyboard connected the two steps');
      assert.equal(await page.locator('.dag-edge').count(), 3);

      // A step dragged from the palette onto the canvas, then removed with the Delete key.
      await page
        .getByRole('button', { name: 'Add Notification' })
        .dragTo(page.getByRole('group', { name: 'Workflow graph' }));
      await page.getByRole('region', { name: 'Settings of notification_1' }).waitFor();
      await settings()
        .getByLabel(/^To \(e-mail addresses\)/)
        .waitFor();
      await step('notification_1').focus();
      await page.keyboard.press('Delete');
      await page.getByRole('status').filter({ hasText: 'Step “notification_1” removed.' }).waitFor();
      assert.equal(await step('notification_1').count(), 0);
      await page.waitForFunction(() => document.activeElement?.getAttribute('data-node-id') === 'end_1');
      assert.equal(await page.locator('.dag-edge').count(), 3);

      // Check: the approval lacks its assignee and title; the API's errors sit beside the step.
      await page.getByRole('button', { name: 'Check', exact: true }).click();
      await page.getByText(/problems to fix before it can be activated/).waitFor();
      const flagged = step('human_approval_1');
      assert.match((await flagged.textContent()) ?? '', /^human_approval_1, Approval, \d+ problems/);
      await flagged.click();
      // Each issue at its field (the API's structured issues: node id and field path), not in a list.
      const value = settings().getByLabel('Role, user id or workspace id (required)');
      assert.equal(await value.getAttribute('aria-invalid'), 'true');
      const described = await value.getAttribute('aria-describedby');
      assert.match(await page.locator(`[id="${described}"]`).innerText(), /missing config "assignee_value"/);
      assert.equal(await settings().getByLabel('Task title (required)').getAttribute('aria-invalid'), 'true');
      assert.equal(await settings().getByLabel('Description').getAttribute('aria-invalid'), null);
      assert.equal(await settings().getByRole('alert').count(), 0, 'nothing left without its field');
      // The typed catalogue's form: an enum is a select of its values, its default said.
      const onTimeout = settings().getByLabel('When nobody answers in time');
      assert.deepEqual(await onTimeout.locator('option').allTextContents(), ['—', 'fail', 'approve', 'reject']);
      await settings().getByText('default: fail').waitFor();
      await checkPage();
      await shot('workflow-editor-errors');

      // The approval's own form.
      await settings().getByLabel('Role, user id or workspace id (required)').fill('finance');
      await settings().getByLabel('Task title (required)').fill('Approve {{trigger.invoice}}');
      await settings().getByLabel('Data shown to the assignee').fill('{"amount": 120, "currency": "EUR"}');
      await settings()
        .getByLabel(/Fields the assignee may change/)
        .fill('amount');
      await settings().getByLabel('Role, user id or workspace id (required)').waitFor();

      // Steps moved by hand: end_1 dragged down, transform_2 moved with Shift+ArrowDown.
      await step('end_1').scrollIntoViewIfNeeded();
      const endBox = (await step('end_1').boundingBox())!;
      await page.mouse.move(endBox.x + 30, endBox.y + 20);
      await page.mouse.down();
      await page.mouse.move(endBox.x + 30, endBox.y + 80, { steps: 6 });
      await page.mouse.move(endBox.x + 30, endBox.y + 140, { steps: 6 });
      await page.mouse.up();
      await page.getByRole('status').filter({ hasText: 'Step end_1 moved.' }).waitFor();
      const movedBox = (await step('end_1').boundingBox())!;
      assert.ok(Math.abs(movedBox.y - endBox.y - 120) <= 2, `end_1 moved down 120 px (${endBox.y} → ${movedBox.y})`);
      const t2Before = (await step('transform_2').boundingBox())!;
      await step('transform_2').focus();
      await page.keyboard.press('Shift+ArrowDown');
      await page.getByRole('status').filter({ hasText: 'Step transform_2 moved.' }).waitFor();
      assert.equal((await step('transform_2').boundingBox())!.y, t2Before.y + 16);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page
        .getByText(/Saved as version \d+\./)
        .first()
        .waitFor();
      await page.getByRole('button', { name: 'Check', exact: true }).click();
      await page.getByText('No problems found.').waitFor();
      const saved = (await flows().call('GET', `/dag/workflows/${workflowId}`)).json();
      assert.equal(saved.status, 'draft');
      assert.deepEqual(
        (saved.nodes as { id: string; depends_on: string[] }[]).map((n) => [n.id, n.depends_on]),
        [
          ['transform_1', []],
          ['human_approval_1', ['transform_1']],
          ['transform_2', ['human_approval_1']],
          ['end_1', ['transform_2']],
        ],
      );
      assert.deepEqual(saved.nodes[1].config.editable_fields, ['amount']);
      const positions = Object.fromEntries(
        (saved.nodes as { id: string; position: { x: number; y: number } }[]).map((n) => [n.id, n.position]),
      );
      assert.equal(positions['end_1']!.y - positions['transform_1']!.y, 120, JSON.stringify(positions));
      assert.equal(positions['transform_2']!.y - positions['transform_1']!.y, 16, JSON.stringify(positions));
      // The layout survives a reload: each step where it was.
      // Where each step is drawn within the canvas (the page above it differs after a reload).
      const drawn = () =>
        page.evaluate(() =>
          ['transform_1', 'human_approval_1', 'transform_2', 'end_1'].map((id) => {
            const node = document.querySelector(`[data-node-id="${id}"]`)!.closest<HTMLElement>('.dag-node')!;
            return [id, node.style.left, node.style.top];
          }),
        );
      const beforeReload = await drawn();
      await page.reload();
      await page.getByRole('heading', { name: 'Invoice approval', level: 1 }).waitFor();
      await step('end_1').waitFor();
      assert.deepEqual(await drawn(), beforeReload, 'the steps are where they were saved');
      await checkPage();
      await shot('workflow-editor');

      // Saved elsewhere meanwhile: Save under If-Match is refused in words, not overwritten.
      const other = await flows().call('PUT', `/dag/workflows/${workflowId}`, { description: 'changed elsewhere' });
      assert.equal(other.statusCode, 200, other.body);
      await page.getByRole('region', { name: 'Trigger' }).getByLabel('Description').fill('changed here');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'Someone changed this workflow' }).waitFor();
      assert.equal((await flows().call('GET', `/dag/workflows/${workflowId}`)).json().description, 'changed elsewhere');
      await page.getByRole('button', { name: 'Reload' }).click();
      await page.getByText('Unsaved changes').waitFor({ state: 'detached' });
      assert.equal(
        await page.getByRole('region', { name: 'Trigger' }).getByLabel('Description').inputValue(),
        'changed elsewhere',
      );
    });

    it('offers the node types the service lists, with a form for one it has none of; Check validates the unsaved draft, saving nothing', {
      skip: NO_CHROMIUM,
    }, async () => {
      // The service's catalogue, with a type this console was never taught.
      const withNewType = async (route: import('playwright-core').Route) => {
        const response = await route.fetch();
        const body = (await response.json()) as { node_types: { type: string; required: string[] }[] };
        assert.ok(body.node_types.some((t) => t.type === 'human_approval'));
        body.node_types.push({ type: 'future_step', required: ['target'] });
        await route.fulfill({ response, json: body });
      };
      await page.route('**/api/v1/dag/node-types', withNewType);
      const before = (await flows().call('GET', `/dag/workflows/${workflowId}`)).json();
      await go(`#/workflow/${workflowId}`, 'Invoice approval');
      // A fresh page load: the console asks for the catalogue once a load.
      await page.reload();
      await page.getByRole('heading', { name: 'Invoice approval', level: 1 }).waitFor();
      const palette = page.getByRole('region', { name: 'Add a step' });
      await palette.getByRole('group', { name: 'Other' }).getByRole('button', { name: 'Add future step' }).click();
      await settings().getByLabel('target (required)').waitFor();
      await page.getByText('Unsaved changes').waitFor();
      await page.getByRole('button', { name: 'Check', exact: true }).click();
      await settings().getByRole('alert').filter({ hasText: 'has unknown type "future_step"' }).waitFor();
      const after = (await flows().call('GET', `/dag/workflows/${workflowId}`)).json();
      assert.equal(after.version, before.version, 'Check saved nothing');
      assert.deepEqual(after.nodes, before.nodes);
      await checkPage();
      await page.unroute('**/api/v1/dag/node-types', withNewType);
      // The unsaved step goes with a reload (its leave-page question accepted), as a person would drop it.
      await page.reload();
      await page.getByRole('heading', { name: 'Invoice approval', level: 1 }).waitFor();
    });

    it('test-runs the draft, follows the live graph, modifies the approval with the task’s form, shows step output', {
      skip: NO_CHROMIUM,
    }, async () => {
      await go(`#/workflow/${workflowId}`, 'Invoice approval');
      await page.getByLabel('Trigger data for a run (JSON)').fill('{"invoice": "INV-7"}');
      await page.getByRole('button', { name: 'Test run' }).click();
      await page.getByRole('heading', { name: /^Invoice approval: / }).waitFor();
      executionId = decodeURIComponent(page.url().split('#/executions/')[1] ?? '');
      assert.ok(executionId);
      const run = await flows().until(executionId, ['paused']);
      assert.equal(run.test_run, true, 'a draft’s run is a test run');
      // The page polls: the heading follows the run to paused, the approval waits.
      await page.getByRole('heading', { name: 'Invoice approval: paused' }).waitFor();
      const graph = page.getByRole('group', { name: 'Steps and their states' });
      assert.match(
        (await graph.locator('button[data-node-id="transform_1"]').textContent()) ?? '',
        /^transform_1, Transform: completed$/,
      );
      await page.getByText('test run').first().waitFor();
      await checkPage();
      await shot('execution-waiting');

      await page.getByRole('link', { name: 'Tasks' }).click();
      await page.getByRole('heading', { name: 'Task inbox', level: 1 }).waitFor();
      await page.getByRole('heading', { name: 'Approve INV-7' }).waitFor();
      await page.getByLabel('Comment on “Approve INV-7”').fill('Lower, as agreed');
      await page.getByRole('button', { name: 'Modify Approve INV-7' }).click();
      const form = page.getByRole('form', { name: 'Change the data of “Approve INV-7”' });
      const amount = form.getByLabel('amount');
      assert.equal(await amount.inputValue(), '120', 'the form is filled with the task’s data');
      assert.equal(await form.getByLabel('currency').count(), 0, 'only the fields the task declares editable');
      await checkPage();
      await shot('tasks');
      await amount.fill('99');
      await form.getByRole('button', { name: 'Send the changes' }).click();
      await page.getByRole('status').filter({ hasText: '“Approve INV-7”: modified.' }).waitFor();
      await page.getByText('Nothing waiting.').waitFor();
      const finished = await flows().finished(executionId);
      assert.equal(finished.status, 'completed', JSON.stringify(finished));
      assert.equal(finished.node_results.human_approval_1.output.decision, 'modified');
      const tasks = (await flows().call('GET', '/dag/tasks?status=completed')).json();
      assert.deepEqual(tasks.data[0].data, { amount: 99, currency: 'EUR' }, 'the modified data is typed as before');
      assert.equal(tasks.data[0].comments, 'Lower, as agreed');

      await go(`#/executions/${executionId}`, 'Invoice approval: completed');
      const done = page.getByRole('group', { name: 'Steps and their states' });
      await done.locator('button[data-node-id="transform_2"]').click();
      const output = page.getByRole('region', { name: 'Output of transform_2' });
      assert.match(await output.innerText(), /"paid"/);
      await done.locator('button[data-node-id="human_approval_1"]').click();
      assert.match(await page.getByRole('region', { name: 'Output of human_approval_1' }).innerText(), /modified/);
      // The workflow edited since (a step renamed, another added): the run's graph stays the one it ran.
      const current = (await flows().call('GET', `/dag/workflows/${workflowId}`)).json();
      const renamed = (current.nodes as { id: string; depends_on: string[] }[]).map((n) => ({
        ...n,
        id: n.id === 'transform_2' ? 'pay' : n.id,
        depends_on: n.depends_on.map((d) => (d === 'transform_2' ? 'pay' : d)),
      }));
      const edited = await flows().call('PUT', `/dag/workflows/${workflowId}`, { nodes: renamed, status: 'draft' });
      assert.equal(edited.statusCode, 200, edited.body);
      await page.reload();
      await page.getByRole('heading', { name: 'Invoice approval: completed', level: 1 }).waitFor();
      const ran = page.getByRole('group', { name: 'Steps and their states' });
      assert.match(
        (await ran.locator('button[data-node-id="transform_2"]').textContent()) ?? '',
        /^transform_2, Transform: completed$/,
      );
      assert.equal(await ran.locator('button[data-node-id="pay"]').count(), 0);
      await page.getByText(`This run used version ${finished.workflow_version} of the workflow`).waitFor();
      await checkPage();
      await shot('execution');
      await go(`#/executions?workflow=${workflowId}`, 'Executions');
      await page.getByRole('link', { name: /^Invoice approval · / }).waitFor();
      await checkPage();
    });

    it('activates the workflow, runs it, and rejects its task from the inbox', { skip: NO_CHROMIUM }, async () => {
      await go(`#/workflow/${workflowId}`, 'Invoice approval');
      await page.getByRole('button', { name: 'Activate' }).click();
      await page.getByText('Active: its trigger now starts it.').first().waitFor();
      assert.equal((await flows().call('GET', `/dag/workflows/${workflowId}`)).json().status, 'active');
      await page.getByLabel('Trigger data for a run (JSON)').fill('{"invoice": "INV-8"}');
      await page.getByRole('button', { name: 'Run now' }).click();
      await page.getByRole('heading', { name: /^Invoice approval: / }).waitFor();
      const id = decodeURIComponent(page.url().split('#/executions/')[1] ?? '');
      assert.equal((await flows().until(id, ['paused'])).test_run, false);
      await go('#/tasks', 'Task inbox');
      await page.getByRole('button', { name: 'Reject Approve INV-8' }).click();
      await page.getByRole('status').filter({ hasText: '“Approve INV-8”: rejected.' }).waitFor();
      const finished = await flows().finished(id);
      assert.equal(finished.node_results.human_approval_1.output.decision, 'rejected');
      // Done tasks say who decided, by name (the owner reads the user list).
      const users = (await flows().call('GET', '/users?page_size=100')).json().data as { id: string; name: string }[];
      const me = users.find((u) => u.id === finished.node_results.human_approval_1.output.decided_by);
      assert.ok(me, 'the decider is a user of the tenant');
      await go('#/tasks?status=completed', 'Task inbox');
      await page.getByText(`rejected by ${me.name}`).waitFor();
      await go('#/workflows', 'Workflows');
      await page.getByRole('link', { name: 'Invoice approval', exact: true }).waitFor();
      await checkPage();
      await shot('workflows');
    });

    it('shows Workflows only where they can be used: not to a viewer, not below the Team tier', {
      skip: NO_CHROMIUM,
    }, async () => {
      const viewer = await loginAs(ctx(), tenant, 'viewer');
      const starter = await createTenant(ctx(), { tier: 'starter' });
      const starterOwner = await loginAs(ctx(), starter, 'owner');
      for (const [who, subdomain, links] of [
        [viewer, tenant.subdomain, { Workflows: 0, Tasks: 1 }],
        [starterOwner, starter.subdomain, { Workflows: 0, Tasks: 0 }],
      ] as const) {
        const tab = await context.newPage();
        try {
          await withConsoleSession(tab, who, subdomain);
          await go('#/documents', 'All documents', tab);
          for (const [name, count] of Object.entries(links))
            assert.equal(await tab.getByRole('link', { name, exact: true }).count(), count, `${subdomain}: ${name}`);
          await tab.goto(`${base}/console/#/workflow/${workflowId}`);
          await tab.getByText('There is no such page.').waitFor();
        } finally {
          await tab.close();
        }
      }
    });

    it('every workflow page fits 360 px, light and dark, and passes axe-core', { skip: NO_CHROMIUM }, async () => {
      const phone = await context.newPage();
      await withConsoleSession(phone, owner, tenant.subdomain);
      const pages = [
        ['workflows', '#/workflows', 'Workflows'],
        ['workflow-editor', `#/workflow/${workflowId}`, 'Invoice approval'],
        ['execution', `#/executions/${executionId}`, 'Invoice approval: completed'],
        ['tasks', '#/tasks?status=completed', 'Task inbox'],
      ] as const;
      try {
        for (const dark of [false, true]) {
          if (dark) {
            await phone.getByRole('button', { name: 'Dark mode' }).click();
            await phone.waitForFunction(() => document.documentElement.dataset['theme'] === 'dark');
          }
          for (const width of [1280, 360]) {
            await phone.setViewportSize({ width, height: width === 360 ? 740 : 860 });
            for (const [name, hash, heading] of pages) {
              await go(hash, heading, phone);
              await phone.locator('main .card').first().waitFor();
              await phone.waitForLoadState('networkidle');
              if (width === 360)
                assert.ok(
                  await phone.evaluate(() => document.documentElement.scrollWidth <= 360),
                  `${name} fits in 360 px`,
                );
              await checkPage(phone);
              const suffix = `${width === 360 ? '-360px' : ''}${dark ? '-dark' : ''}`;
              if (suffix) await shot(`${name}${suffix}`, phone);
            }
          }
        }
      } finally {
        await phone.close();
      }
    });
  },
  { worker: true },
);
