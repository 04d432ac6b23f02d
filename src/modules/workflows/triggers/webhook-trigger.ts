import { randomUUID } from 'node:crypto';
import AjvModule, { type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Database } from '../../../db/database.ts';
import { AppError, errors } from '../../../lib/errors.ts';
import { verifyBodySignature, WEBHOOK_HEADERS } from '../../../lib/webhook-signature.ts';
import type { ExecutionsService } from '../executions.service.ts';
import type { Execution, WorkflowsRepository } from '../workflows.repository.ts';
import { workflowNotFound } from '../workflow-definition.ts';

// ajv and ajv-formats are CommonJS with a default export.
const Ajv = AjvModule.default ?? AjvModule;
const addFormats = addFormatsModule.default ?? addFormatsModule;

export interface HookRequest {
  workflowId: string;
  rawBody: string;
  signature: string | string[] | undefined;
  deliveryId?: string;
}

/**
 * The `webhook` trigger (contract §10): `POST /dag/hooks/{workflow_id}` signed with
 * `X-Service-Signature: sha256=<hex HMAC of the raw body keyed with conditions.secret>`; the body is
 * checked against `conditions.validation` (JSON Schema, Ajv) and becomes `trigger_data`. Only an
 * active workflow with a webhook trigger answers; anything else is 404, so hooks reveal nothing.
 */
export class WebhookTrigger {
  readonly #database: Database;
  readonly #repo: WorkflowsRepository;
  readonly #executions: ExecutionsService;
  readonly #ajv = new Ajv({ allErrors: true, strict: false });
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(deps: { database: Database; workflows: WorkflowsRepository; executions: ExecutionsService }) {
    this.#database = deps.database;
    this.#repo = deps.workflows;
    this.#executions = deps.executions;
    addFormats(this.#ajv);
  }

  async receive(request: HookRequest): Promise<Execution> {
    const db = this.#database.db;
    const workflow = await this.#repo.findWorkflowAnyTenant(db, request.workflowId);
    const trigger = workflow?.trigger;
    if (workflow?.status !== 'active' || trigger?.type !== 'webhook') throw workflowNotFound();
    const secret = String(trigger.conditions?.secret ?? '');
    if (!secret || typeof request.signature !== 'string' || !verifyBodySignature(secret, request.rawBody, request.signature)) {
      throw new AppError(401, 'unauthorized', `Missing or invalid ${WEBHOOK_HEADERS.signature}`);
    }
    let body: unknown;
    try {
      body = request.rawBody.trim() === '' ? {} : JSON.parse(request.rawBody);
    } catch {
      throw errors.field('body', 'must be JSON');
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw errors.field('body', 'must be a JSON object');
    const schema = trigger.conditions?.validation;
    if (schema && typeof schema === 'object') this.#check(`${workflow.id}:${workflow.version}`, schema, body);
    // A sender's delivery id (X-Service-Delivery) makes its retries start one execution.
    const key = `hook:${workflow.id}:${request.deliveryId ?? randomUUID()}`;
    return db.transaction().execute(async (trx) => {
      const started = await this.#executions.startFromTrigger(trx, workflow, 'webhook', body as Record<string, unknown>, key);
      if (!started) throw errors.conflict('This delivery already started an execution', { delivery_id: request.deliveryId });
      return started;
    });
  }

  #check(key: string, schema: object, body: unknown): void {
    let validate = this.#validators.get(key);
    if (!validate) {
      try {
        validate = this.#ajv.compile(schema);
      } catch (error) {
        throw errors.field('validation', `the trigger's JSON Schema does not compile: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (this.#validators.size > 500) this.#validators.clear();
      this.#validators.set(key, validate);
    }
    if (!validate(body)) {
      throw errors.validation((validate.errors ?? []).map((e) => ({ field: e.instancePath.replace(/^\//, '').replaceAll('/', '.') || 'body', message: e.message ?? 'is invalid' })));
    }
  }
}
