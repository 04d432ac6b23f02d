import { Type } from 'typebox';
import { IdParams, MessageBody, PageQuery, pageWindow, standardErrors } from '../../http/common-schemas.ts';
import { authOf, type App } from '../../http/fastify-types.ts';
import type { AgentsService } from './agents.service.ts';
import {
  AgentBody,
  AgentList,
  AgentRunList,
  AgentRunQuery,
  AgentView,
  CreateProjectBody,
  ItemList,
  ItemListQuery,
  ProgressView,
  ProjectList,
  ProjectView,
  UpdateProjectBody,
} from './imports.schemas.ts';
import {
  presentAgent,
  presentAgentRun,
  presentAgentWithRuns,
  presentItem,
  presentProgress,
  presentProject,
} from './imports.presenter.ts';
import type { AgentRunStatus, ItemStatus } from './imports.tables.ts';
import type { ProjectsService } from './projects.service.ts';

const tags = ['import projects'];
const base = '/migrations/projects';
const errors409 = { ...standardErrors, 409: standardErrors[404] };
/** `config.target_folder_id`, when it names a folder (issue 26). */
const TARGET =
  "`config.target_folder_id` must be a folder of the tenant the caller may file into (404 `not_found` for any other, as an upload's `folder_id`).";
const WHO =
  "Team tier and above (403 `TIER_LIMIT_EXCEEDED` below); owners, admins and API keys (403 `forbidden` for members and viewers). Another tenant's project is 404.";

/** Spec "Endpoints > Import projects"; contract §12. */
export function importRoutes(app: App, s: { projects: ProjectsService; agents: AgentsService }): void {
  const { projects, agents } = s;

  app.post(
    base,
    {
      schema: {
        tags,
        summary: 'Create an import project',
        description: `Answers the project: \`draft\` without credentials or \`folder_ids\`, else \`configured\`. Credentials are stored encrypted and never shown. ${TARGET} ${WHO}`,
        body: CreateProjectBody,
        response: { 201: ProjectView, ...standardErrors },
      },
    },
    async (request, reply) =>
      reply.status(201).send(presentProject(await projects.create(authOf(request), request.body))),
  );

  app.get(
    base,
    {
      schema: {
        tags,
        summary: 'List import projects',
        description: `Paged \`{data, total, page, page_size}\`, newest first. ${WHO}`,
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: ProjectList, ...standardErrors },
      },
    },
    async (request) => {
      const page = pageWindow(request.query);
      const { rows, total } = await projects.list(authOf(request), page);
      return { data: rows.map(presentProject), total, page: page.page, page_size: page.pageSize };
    },
  );

  app.get(
    `${base}/:id`,
    {
      schema: {
        tags,
        summary: 'Get an import project',
        description: WHO,
        params: IdParams,
        response: { 200: ProjectView, ...standardErrors },
      },
    },
    async (request) => presentProject(await projects.get(authOf(request), request.params.id)),
  );

  app.put(
    `${base}/:id`,
    {
      schema: {
        tags,
        summary: 'Update an import project',
        description: `Partial; while \`draft\`, \`configured\` or \`ready\` (409 \`conflict\` otherwise). Changing \`folder_ids\`, \`filters\` or \`export_formats\` of a \`ready\` project returns it to \`configured\` (scan again). ${TARGET} ${WHO}`,
        params: IdParams,
        body: UpdateProjectBody,
        response: { 200: ProjectView, ...errors409 },
      },
    },
    async (request) => presentProject(await projects.update(authOf(request), request.params.id, request.body)),
  );

  app.delete(
    `${base}/:id`,
    {
      schema: {
        tags,
        summary: 'Delete an import project',
        description: `Only \`completed\`, \`completed_with_errors\`, \`cancelled\` or \`failed\` (409 otherwise). The imported documents stay. ${WHO}`,
        params: IdParams,
        response: { 200: MessageBody, ...errors409 },
      },
    },
    async (request) => {
      await projects.delete(authOf(request), request.params.id);
      return { message: 'Import project deleted' };
    },
  );

  const transitions = [
    [
      'scan',
      'Start scanning',
      '`configured` (or `ready`/`failed`, to scan again) → `scanning`; the scan runs as a job and ends in `ready` (or `failed`, with `error`).',
      'scan',
    ],
    ['start', 'Begin the import', '`ready` → `in_progress`.', 'start'],
    ['pause', 'Pause the import', '`in_progress` → `paused`; files being imported finish.', 'pause'],
    ['resume', 'Resume the import', '`paused` → `in_progress`; continues with the files still pending.', 'resume'],
    ['cancel', 'Cancel the import', '`in_progress` or `paused` → `cancelled`; imported files stay.', 'cancel'],
  ] as const;
  for (const [path, summary, what, action] of transitions) {
    app.post(
      `${base}/:id/${path}`,
      {
        schema: {
          tags,
          summary,
          description: `${what} Any other state is 409 \`conflict\`. 202 with the project. ${WHO}`,
          params: IdParams,
          response: { 202: ProjectView, ...errors409 },
        },
      },
      async (request, reply) =>
        reply.status(202).send(presentProject(await projects[action](authOf(request), request.params.id))),
    );
  }

  app.get(
    `${base}/:id/progress`,
    {
      schema: {
        tags,
        summary: 'Import progress',
        description: WHO,
        params: IdParams,
        response: { 200: ProgressView, ...standardErrors },
      },
    },
    async (request) => presentProgress(await projects.progress(authOf(request), request.params.id)),
  );

  app.get(
    `${base}/:id/items`,
    {
      schema: {
        tags,
        summary: 'List the files of a project',
        description: `Paged, in scan order; filter by \`status\`, \`type\` (extension or media type), \`min_size\`, \`max_size\` (bytes). ${WHO}`,
        params: IdParams,
        querystring: ItemListQuery,
        response: { 200: ItemList, ...standardErrors },
      },
    },
    async (request) => {
      const page = pageWindow(request.query);
      const q = request.query;
      const filter = {
        status: q.status as ItemStatus | undefined,
        type: q.type,
        minSize: q.min_size,
        maxSize: q.max_size,
      };
      const { rows, total } = await projects.items(authOf(request), request.params.id, filter, page);
      return { data: rows.map(presentItem), total, page: page.page, page_size: page.pageSize };
    },
  );

  app.post(
    `${base}/:id/agents`,
    {
      schema: {
        tags,
        summary: 'Assign an AI agent',
        description: `\`agent_type\` ai_tag (\`max_tags\`), ai_classify (\`categories\`, \`metadata_key\`), ai_summarize (\`max_length\`), ai_extract (\`extraction_schema\`, \`metadata_key\`) or workflow (\`workflow_id\`); \`phase\` post-import (each document once processed), batch (every \`batch_size\` documents; the rest when the import ends) or completion (once, when the import has completed). Without \`auto_approve\` each run's proposal waits as an approval task in \`/dag/tasks\` (\`assignee_type\`/\`assignee_value\`, default role admin; \`timeout_hours\` default 168; \`on_timeout\` default reject). 400 for a config the agent cannot run with, 404 \`workflow_not_found\`. 201 with the assignment. ${WHO}`,
        params: IdParams,
        body: AgentBody,
        response: { 201: AgentView, ...errors409 },
      },
    },
    async (request, reply) =>
      reply.status(201).send(presentAgent(await agents.add(authOf(request), request.params.id, request.body))),
  );

  app.get(
    `${base}/:id/agents`,
    {
      schema: {
        tags,
        summary: "List a project's agents",
        description: `Each assignment with its runs counted by status. ${WHO}`,
        params: IdParams,
        response: { 200: AgentList, ...standardErrors },
      },
    },
    async (request) => ({ data: (await agents.list(authOf(request), request.params.id)).map(presentAgentWithRuns) }),
  );

  app.get(
    `${base}/:id/agent-runs`,
    {
      schema: {
        tags,
        summary: "List a project's agent runs",
        description: `Paged, oldest first, filtered by \`agent_id\` and \`status\` (queued, awaiting_approval, applied, rejected, expired, failed): each run's documents, proposal, approval task and result. ${WHO}`,
        params: IdParams,
        querystring: AgentRunQuery,
        response: { 200: AgentRunList, ...standardErrors },
      },
    },
    async (request) => {
      const page = pageWindow(request.query);
      const { rows, total } = await agents.runs(authOf(request), request.params.id, {
        ...page,
        agentId: request.query.agent_id,
        status: request.query.status as AgentRunStatus | undefined,
      });
      return { data: rows.map(presentAgentRun), total, page: page.page, page_size: page.pageSize };
    },
  );
}
