import { randomUUID } from 'node:crypto';
import type { Database } from '../../../db/database.ts';
import { errors } from '../../../lib/errors.ts';
import { SandboxEvaluationError } from '../../../lib/sandbox/sandbox-pool.ts';
import type { ExpressionEvaluator } from '../engine/expression-evaluator.ts';
import { verifyBodySignature, WEBHOOK_HEADERS } from '../../../lib/webhook-signature.ts';
import type { ExecutionsService } from '../executions.service.ts';
import type { Execution, WorkflowsRepository } from '../workflows.repository.ts';
import { workflowNotFound } from '../workflow-definition.ts';

export interface HookRequest {
  workflowId: string;
  rawBody: string;
  signature: string | string[] | undefined;
  deliveryId?: string;
}

/**
 * The `webhook` trigger (contract §10): `POST /dag/hooks/{workflow_id}` signed with
 * `X-Service-Signature: sha256=<hex HMAC of the raw body keyed with conditions.secret>`; the body is
 * checked against `conditions.validation` (JSON Schema, Ajv, in the expression sandbox: the schema is
 * the workflow author's code) and becomes `trigger_data`. Only an
 * active workflow with a webhook trigger answers; anything else is 404, so hooks reveal nothing.
 */
export class WebhookTrigger {
  readonly #database: Database;
  readonly #repo: WorkflowsRepository;
  readonly #executions: ExecutionsService;
  readonly #expressions: ExpressionEvaluator;

  constructor(deps: {
    database: Database;
    workflows: WorkflowsRepository;
    executions: ExecutionsService;
    expressions: ExpressionEvaluator;
  }) {
    this.#database = deps.database;
    this.#repo = deps.workflows;
    this.#executions = deps.executions;
    this.#expressions = deps.expressions;
  }

  async receive(request: HookRequest): Promise<Execution> {
    const db = this.#database.db;
    const workflow = await this.#repo.findWorkflowAnyTenant(db, request.workflowId);
    const trigger = workflow?.trigger;
    if (workflow?.status !== 'active' || trigger?.type !== 'webhook') throw workflowNotFound();
    const secret = String(trigger.conditions?.secret ?? '');
    if (
      !secret ||
      typeof request.signature !== 'string' ||
      !verifyBodySignature(secret, request.rawBody, request.signature)
    ) {
      throw errors.unauthorized(`Missing or invalid ${WEBHOOK_HEADERS.signature}`);
    }
    let body: unknown;
    try {
      body = request.rawBody.trim() === '' ? {} : JSON.parse(request.rawBody);
    } catch {
      throw errors.field('body', 'must be JSON');
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      throw errors.field('body', 'must be a JSON object');
    const schema = trigger.conditions?.validation;
    if (schema && typeof schema === 'object') await this.#check(schema, body);
    // A sender's delivery id (X-Service-Delivery) makes its retries start one execution.
    const key = `hook:${workflow.id}:${request.deliveryId ?? randomUUID()}`;
    return db.transaction().execute(async (trx) => {
      const started = await this.#executions.startFromTrigger(
        trx,
        workflow,
        'webhook',
        body as Record<string, unknown>,
        key,
      );
      if (!started)
        throw errors.conflict('This delivery already started an execution', { delivery_id: request.deliveryId });
      return started;
    });
  }

  async #check(schema: object, body: unknown): Promise<void> {
    let problems: { path: string; message: string }[] | null;
    try {
      problems = await this.#expressions.schemaProblems(schema, body);
    } catch (error) {
      // A schema that does not compile, or whose check ran past a sandbox limit: the body is not accepted.
      const message =
        error instanceof SandboxEvaluationError
          ? `the trigger's ${error.message}`
          : `could not be checked against the trigger's JSON Schema: ${(error as Error).message}`;
      throw errors.field(error instanceof SandboxEvaluationError ? 'validation' : 'body', message);
    }
    if (problems)
      throw errors.validation(
        problems.map((p) => ({ field: p.path.replace(/^\//, '').replaceAll('/', '.') || 'body', message: p.message })),
      );
  }
}
