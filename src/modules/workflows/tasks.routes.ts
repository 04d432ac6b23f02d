import { IdParams, pageWindow, standardErrors } from '../../http/common-schemas.ts';
import { authOf, type App } from '../../http/fastify-types.ts';
import { WHO } from './access-descriptions.ts';
import { presentTask, presentTaskCompletion } from './tasks.presenter.ts';
import { CompleteTaskAnswer, CompleteTaskBody, TaskBody, TaskList, TaskListQuery } from './tasks.schemas.ts';
import type { TasksService } from './tasks.service.ts';

const tags = ['workflows'];
const config = { rateLimit: 'task_operations' };
const errors409 = { ...standardErrors, 409: standardErrors[404] };

/** Spec: Endpoints > Workflows (tasks); contract §10 Tasks. */
export function taskRoutes(app: App, s: { tasks: TasksService }): void {
  const { tasks } = s;

  app.get(
    '/dag/tasks',
    {
      config,
      schema: {
        tags,
        summary: 'List human tasks',
        description: `\`assignee\` (a user id) lists tasks assigned to that user directly or through their roles and workspaces. ${WHO.listTasks}`,
        querystring: TaskListQuery,
        response: { 200: TaskList, ...standardErrors },
      },
    },
    async (request) => {
      const page = pageWindow(request.query);
      const { rows, total } = await tasks.list(authOf(request), {
        ...page,
        assignee: request.query.assignee,
        role: request.query.role,
        status: request.query.status,
      });
      return { data: rows.map(presentTask), total, page: page.page, page_size: page.pageSize };
    },
  );

  app.get(
    '/dag/tasks/:id',
    {
      config,
      schema: {
        tags,
        summary: 'Get a human task',
        description: WHO.readTask,
        params: IdParams,
        response: { 200: TaskBody, ...standardErrors },
      },
    },
    async (request) => presentTask(await tasks.get(authOf(request), request.params.id)),
  );

  app.post(
    '/dag/tasks/:id/complete',
    {
      config,
      schema: {
        tags,
        summary: 'Complete a human task',
        description:
          'Only an assignee, an owner or an admin (403 `INSUFFICIENT_PERMISSIONS`); an AI review task (`source` `ai_review`): whoever may edit its document (anyone else 404 `TASK_NOT_FOUND`). 409 `TASK_ALREADY_COMPLETED` or `TASK_EXPIRED`. A review accepts only its `editable_fields` in `modified_data`.',
        params: IdParams,
        body: CompleteTaskBody,
        response: { 200: CompleteTaskAnswer, ...errors409 },
      },
    },
    async (request) => {
      const body = request.body;
      const { task, executionStatus } = await tasks.complete(authOf(request), request.params.id, {
        decision: body.decision,
        ...(body.comments !== undefined ? { comments: body.comments } : {}),
        ...(body.modified_data !== undefined ? { modifiedData: body.modified_data } : {}),
      });
      return presentTaskCompletion(task, executionStatus);
    },
  );
}
