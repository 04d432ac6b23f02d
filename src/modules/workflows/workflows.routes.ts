import type { FastifyRequest } from 'fastify';
import { IdParams, MessageBody, Paged, pageWindow, standardErrors } from '../../http/common-schemas.ts';
import { ifMatchUpdate } from '../../http/conditional-requests.ts';
import { authOf, type App } from '../../http/fastify-types.ts';
import { emptyBodyAsObject } from '../../http/validation.ts';
import { WHO } from './access-descriptions.ts';
import { canonicalPriority } from './execution-priority.ts';
import type { ExecutionsService } from './executions.service.ts';
import {
  presentCancelledExecution,
  presentCreatedWorkflow,
  presentExecution,
  presentExecutionSummary,
  presentPausedExecution,
  presentResumedExecution,
  presentStartedExecution,
  presentWorkflow,
  presentWorkflowListItem,
} from './workflows.presenter.ts';
import {
  CancelAnswer,
  CancelBody,
  CreatedWorkflow,
  CreateWorkflowBody,
  ExecuteAnswer,
  ExecuteBody,
  ExecutionBody,
  ExecutionListQuery,
  PauseAnswer,
  ResumeAnswer,
  ResumeBody,
  UpdateWorkflowBody,
  ValidationAnswer,
  WorkflowBody,
  WorkflowListItem,
  WorkflowListQuery,
} from './workflows.schemas.ts';
import type { WorkflowsService } from './workflows.service.ts';

const tags = ['workflows'];
const crud = { rateLimit: 'workflow_crud' };
const execute = { rateLimit: 'workflow_execute' };
const status = { rateLimit: 'execution_status' };
const errors409 = { ...standardErrors, 409: standardErrors[404] };

/** Spec: Endpoints > Workflows; docs/api-decisions.md §10. */
export function workflowRoutes(app: App, s: { workflows: WorkflowsService; executions: ExecutionsService }): void {
  const { workflows, executions } = s;
  // The workflow as GET answers it: PUT's If-Match is checked against this representation's ETag.
  const detail = async (request: FastifyRequest<{ Params: { id: string } }>) => {
    const { workflow, statistics } = await workflows.get(authOf(request), request.params.id);
    return presentWorkflow(workflow, statistics);
  };

  app.get(
    '/dag/workflows',
    {
      config: crud,
      schema: {
        tags,
        summary: 'List workflows',
        description: WHO.listWorkflows,
        querystring: WorkflowListQuery,
        response: { 200: Paged(WorkflowListItem), ...standardErrors },
      },
    },
    async (request) => {
      const page = pageWindow(request.query);
      const { rows, total } = await workflows.list(authOf(request), { ...page, status: request.query.status });
      return { data: rows.map(presentWorkflowListItem), total, page: page.page, page_size: page.pageSize };
    },
  );

  app.post(
    '/dag/workflows',
    {
      config: crud,
      schema: {
        tags,
        summary: 'Create a workflow (draft)',
        description: `The definition is validated first: an invalid one is 400 \`INVALID_WORKFLOW\` with every error in \`details.errors\` (as \`POST …/validate\` lists them), unless the body says \`status: draft\`, which saves an unfinished draft as it is. ${WHO.createWorkflow}`,
        body: CreateWorkflowBody,
        response: { 201: CreatedWorkflow, ...standardErrors },
      },
    },
    async (request, reply) =>
      reply.status(201).send(presentCreatedWorkflow(await workflows.create(authOf(request), request.body))),
  );

  app.get(
    '/dag/workflows/:id',
    {
      config: crud,
      schema: {
        tags,
        summary: 'Get a workflow with statistics',
        description: WHO.readWorkflow,
        params: IdParams,
        response: { 200: WorkflowBody, ...standardErrors },
      },
    },
    (request) => detail(request),
  );

  app.put(
    '/dag/workflows/:id',
    {
      config: { ...crud, ifMatch: true },
      schema: {
        tags,
        summary: 'Update a workflow',
        description: `A change of \`nodes\`, \`trigger\` or \`error_handling\` makes a new \`version\` and is validated (400 \`INVALID_WORKFLOW\` with every error) unless the body says \`status: draft\`; \`status: active\` always validates first. With \`If-Match\` (the ETag of GET), a workflow changed since is 412 \`precondition_failed\`. ${WHO.changeWorkflow}`,
        params: IdParams,
        body: UpdateWorkflowBody,
        response: { 200: WorkflowBody, ...errors409 },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      const updated = await ifMatchUpdate(
        request,
        reply,
        `${auth.tenant.id}:workflow:${request.params.id}`,
        () => detail(request),
        () => workflows.update(auth, request.params.id, request.body),
      );
      return presentWorkflow(updated);
    },
  );

  app.delete(
    '/dag/workflows/:id',
    {
      config: crud,
      schema: {
        tags,
        summary: 'Delete a workflow',
        description: WHO.changeWorkflow,
        params: IdParams,
        response: { 200: MessageBody, ...errors409 },
      },
    },
    async (request) => {
      await workflows.delete(authOf(request), request.params.id);
      return { message: 'Workflow deleted' };
    },
  );

  app.post(
    '/dag/workflows/:id/validate',
    {
      config: crud,
      schema: {
        tags,
        summary: 'Validate a workflow',
        description: WHO.readWorkflow,
        params: IdParams,
        response: { 200: ValidationAnswer, ...standardErrors },
      },
    },
    async (request) => {
      const result = await workflows.validate(authOf(request), request.params.id);
      return { valid: result.errors.length === 0, ...result };
    },
  );

  app.post(
    '/dag/workflows/:id/execute',
    {
      config: execute,
      schema: {
        tags,
        summary: 'Start an execution',
        description: WHO.execute,
        params: IdParams,
        body: ExecuteBody,
        response: { 201: ExecuteAnswer, ...errors409 },
      },
    },
    async (request, reply) => {
      const body = request.body ?? {};
      const execution = await executions.execute(authOf(request), request.params.id, {
        triggerData: body.trigger_data ?? {},
        ...(body.priority ? { priority: canonicalPriority(body.priority) } : {}),
      });
      return reply.status(201).send(presentStartedExecution(execution));
    },
  );

  app.get(
    '/dag/executions',
    {
      config: status,
      schema: {
        tags,
        summary: 'List executions',
        description: WHO.listExecutions,
        querystring: ExecutionListQuery,
        response: { 200: Paged(ExecutionBody), ...standardErrors },
      },
    },
    async (request) => {
      const page = pageWindow(request.query);
      const { rows, total } = await executions.list(authOf(request), {
        ...page,
        workflowId: request.query.workflow_id,
        status: request.query.status,
      });
      return { data: rows.map(presentExecutionSummary), total, page: page.page, page_size: page.pageSize };
    },
  );

  app.get(
    '/dag/executions/:id',
    {
      config: status,
      schema: {
        tags,
        summary: 'Get an execution with node results',
        description: WHO.readExecution,
        params: IdParams,
        response: { 200: ExecutionBody, ...standardErrors },
      },
    },
    async (request) => {
      const { execution, runs, definition } = await executions.get(authOf(request), request.params.id);
      return presentExecution(execution, runs, definition);
    },
  );

  app.post(
    '/dag/executions/:id/pause',
    {
      config: execute,
      schema: {
        tags,
        summary: 'Pause a running execution',
        description: WHO.controlExecution,
        params: IdParams,
        response: { 200: PauseAnswer, ...errors409 },
      },
    },
    async (request) => presentPausedExecution(await executions.pause(authOf(request), request.params.id)),
  );

  app.post(
    '/dag/executions/:id/resume',
    {
      config: execute,
      preValidation: emptyBodyAsObject,
      schema: {
        tags,
        summary: 'Resume a paused execution',
        description: WHO.controlExecution,
        params: IdParams,
        body: ResumeBody,
        response: { 200: ResumeAnswer, ...errors409 },
      },
    },
    async (request) =>
      presentResumedExecution(await executions.resume(authOf(request), request.params.id, request.body?.modified_data)),
  );

  app.post(
    '/dag/executions/:id/cancel',
    {
      config: execute,
      preValidation: emptyBodyAsObject,
      schema: {
        tags,
        summary: 'Cancel an execution',
        description: WHO.controlExecution,
        params: IdParams,
        body: CancelBody,
        response: { 200: CancelAnswer, ...errors409 },
      },
    },
    async (request) =>
      presentCancelledExecution(await executions.cancel(authOf(request), request.params.id, request.body?.reason)),
  );
}
