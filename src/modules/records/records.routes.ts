import { Type } from 'typebox';
import {
  ErrorBody,
  IdParams,
  MessageBody,
  Paged,
  PageQuery,
  pageWindow,
  standardErrors,
} from '../../http/common-schemas.ts';
import { authOf, type App } from '../../http/fastify-types.ts';
import type { LegalHoldsService } from './legal-holds.service.ts';
import { presentHold, presentRule } from './records.presenter.ts';
import { CreateHoldBody, CreateRuleBody, HoldListQuery, HoldView, RuleView } from './records.schemas.ts';
import type { RetentionRulesService } from './retention-rules.service.ts';

const ADMINS = 'Owners, admins and API keys (403 `forbidden` for members and viewers).';

/** docs/records.md: legal holds and retention rules. */
export function recordsRoutes(app: App, s: { holds: LegalHoldsService; rules: RetentionRulesService }): void {
  const holdTags = ['legal-holds'];
  const ruleTags = ['retention-rules'];

  app.post(
    '/legal-holds',
    {
      schema: {
        tags: holdTags,
        summary: 'Place a legal hold',
        description: `${ADMINS} While active, nothing the hold covers may be deleted (documents, folders with everything below them, also documents added later, their versions and stored copies): such a deletion answers 409 \`legal_hold\`. Every id must be a document or folder of the tenant (404 otherwise); at least one is required.`,
        body: CreateHoldBody,
        response: { 201: HoldView, ...standardErrors },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const hold = await s.holds.create(authOf(request), {
        name: b.name,
        ...(b.document_ids ? { documentIds: b.document_ids } : {}),
        ...(b.folder_ids ? { folderIds: b.folder_ids } : {}),
      });
      return reply.status(201).send(presentHold(hold));
    },
  );

  app.get(
    '/legal-holds',
    {
      schema: {
        tags: holdTags,
        summary: 'List legal holds',
        description: `${ADMINS} Newest first; released holds stay listed.`,
        querystring: HoldListQuery,
        response: { 200: Paged(HoldView), ...standardErrors },
      },
    },
    async (request) => {
      const page = pageWindow(request.query);
      const { rows, total } = await s.holds.list(authOf(request), {
        limit: page.limit,
        offset: page.offset,
        ...(request.query.status ? { status: request.query.status } : {}),
      });
      return { data: rows.map(presentHold), total, page: page.page, page_size: page.pageSize };
    },
  );

  app.get(
    '/legal-holds/:id',
    {
      schema: {
        tags: holdTags,
        summary: 'Get a legal hold',
        description: ADMINS,
        params: IdParams,
        response: { 200: HoldView, ...standardErrors },
      },
    },
    async (request) => presentHold(await s.holds.get(authOf(request), request.params.id)),
  );

  app.delete(
    '/legal-holds/:id',
    {
      schema: {
        tags: holdTags,
        summary: 'Release a legal hold',
        description: `${ADMINS} The hold ends (what it covered may be deleted again unless another hold covers it); its record stays, \`status: released\`. 409 \`conflict\` when already released.`,
        params: IdParams,
        response: { 200: HoldView, 409: ErrorBody, ...standardErrors },
      },
    },
    async (request) => presentHold(await s.holds.release(authOf(request), request.params.id)),
  );

  app.post(
    '/retention-rules',
    {
      schema: {
        tags: ruleTags,
        summary: 'Create a retention rule',
        description: `${ADMINS} Documents of the folder and every folder below it are deleted (\`delete\`) or sent to the task inbox for approval (\`review\`) once \`keep_days\` have passed since \`basis\`. Rules run in the worker every hour; documents under a legal hold are left alone.`,
        body: CreateRuleBody,
        response: { 201: RuleView, ...standardErrors },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const rule = await s.rules.create(authOf(request), {
        folderId: b.folder_id,
        keepDays: b.keep_days,
        basis: b.basis,
        action: b.action,
      });
      return reply.status(201).send(presentRule(rule));
    },
  );

  app.get(
    '/retention-rules',
    {
      schema: {
        tags: ruleTags,
        summary: 'List retention rules',
        description: `${ADMINS} Newest first, each with its last run.`,
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: Paged(RuleView), ...standardErrors },
      },
    },
    async (request) => {
      const page = pageWindow(request.query);
      const { rows, total } = await s.rules.list(authOf(request), page);
      return { data: rows.map(presentRule), total, page: page.page, page_size: page.pageSize };
    },
  );

  app.get(
    '/retention-rules/:id',
    {
      schema: {
        tags: ruleTags,
        summary: 'Get a retention rule',
        description: `${ADMINS} \`last_run\` shows a run's progress while it runs.`,
        params: IdParams,
        response: { 200: RuleView, ...standardErrors },
      },
    },
    async (request) => presentRule(await s.rules.get(authOf(request), request.params.id)),
  );

  app.post(
    '/retention-rules/:id/run',
    {
      schema: {
        tags: ruleTags,
        summary: 'Run a retention rule now',
        description: `${ADMINS} 202: the run is queued for the worker (a run already waiting or running is not doubled); follow \`last_run\`.`,
        params: IdParams,
        response: { 202: RuleView, ...standardErrors },
      },
    },
    async (request, reply) =>
      reply.status(202).send(presentRule(await s.rules.run(authOf(request), request.params.id))),
  );

  app.delete(
    '/retention-rules/:id',
    {
      schema: {
        tags: ruleTags,
        summary: 'Delete a retention rule',
        description: `${ADMINS} A run in progress stops at its next page; the rule's pending review tasks leave the inbox.`,
        params: IdParams,
        response: { 200: MessageBody, ...standardErrors },
      },
    },
    async (request) => {
      await s.rules.delete(authOf(request), request.params.id);
      return { message: 'Retention rule deleted' };
    },
  );
}
