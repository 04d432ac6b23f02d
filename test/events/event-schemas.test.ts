import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { WebhookEventData, WebhookEventName } from '../../packages/sdk/src/generated/api-types.ts';
import {
  EVENT_NAMES,
  type EventDataMap,
  type EventName,
  eventEnvelope,
  WEBHOOK_TEST_EVENT,
} from '../../src/events/event-catalogue.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/*
 * One declaration per event: its module's `<module>.events.ts` schema gives the TypeScript type
 * (`EventDataMap`), the OpenAPI document's `webhooks` and, generated from those, the SDK's
 * `WebhookEvents`. The type checks below fail `npm run typecheck` when the SDK's committed types
 * and the service's event types disagree (test/sdk/types-in-step.test.ts fails when the SDK file
 * is older than the document); the tests below fail when the document misses an event.
 */

/** Each type assignable to the other: a field added, removed, renamed, made optional or retyped on one side breaks it. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Drifted = { [N in EventName]: Same<EventDataMap[N], WebhookEventData<N>> extends true ? never : N }[EventName];
const noEventDrifted: [Drifted] extends [never] ? true : Drifted = true;
const sameEventNames: Same<EventName | typeof WEBHOOK_TEST_EVENT, WebhookEventName> = true;

// CommonJS packages: their class comes through the default export.
const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;
const addFormats = addFormatsModule.default ?? addFormatsModule;

type Json = Record<string, unknown>;
let t: TestApp;
let doc: Json;
before(async () => {
  t = await startTestApp('sqlite');
  doc = (await t.app.inject({ url: '/api/v1/openapi.json' })).json();
});
after(() => t.close());

describe('event schemas: one declaration for the event type, the OpenAPI webhooks and the SDK', () => {
  it('type-checks the SDK against the event catalogue (see the declarations above)', () => {
    assert.equal(noEventDrifted, true);
    assert.equal(sameEventNames, true);
  });

  it('documents a webhook for every event of the catalogue, and the test ping, in its envelope form', () => {
    const webhooks = doc['webhooks'] as Record<
      string,
      { post: { requestBody: { content: Record<string, { schema: Json }> } } }
    >;
    assert.deepEqual(Object.keys(webhooks), [...EVENT_NAMES, WEBHOOK_TEST_EVENT]);
    const body = (name: string) => webhooks[name]!.post.requestBody.content['application/json']!.schema;
    assert.deepEqual((body('document.processed')['required'] as string[]).sort(), ['data', 'id', 'timestamp', 'type']);
    assert.deepEqual((body('dag.execution.completed')['required'] as string[]).sort(), ['data', 'event', 'timestamp']);
    assert.deepEqual(
      body('document.processed')['properties'] && (body('document.processed')['properties'] as Json)['data'],
      { $ref: '#/components/schemas/DocumentProcessedEventData' },
    );
  });

  it("a delivery's body as the service builds it matches its documented schema; a drifted one does not", () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    ajv.addSchema({ ...doc, $id: 'openapi.json' } as Json);
    const validate = (name: string) =>
      ajv.getSchema(
        `openapi.json#/webhooks/${name.replace(/\//g, '~1')}/post/requestBody/content/application~1json/schema`,
      )!;
    const at = Date.parse('2026-11-28T01:00:00Z');
    const processed: EventDataMap['document.processed'] = {
      document_id: 'doc_1',
      status: 'completed',
      ai_summary: null,
      ai_tags: ['x'],
    };
    assert.equal(
      validate('document.processed')(eventEnvelope({ id: 'evt_1', name: 'document.processed', at, data: processed })),
      true,
    );
    const completed: EventDataMap['dag.execution.completed'] = {
      execution_id: 'ex_1',
      workflow_id: 'wf_1',
      workflow_name: 'W',
      status: 'completed',
      duration_seconds: 3,
      final_output: { any: ['json'] },
    };
    assert.equal(
      validate('dag.execution.completed')(
        eventEnvelope({ id: 'evt_2', name: 'dag.execution.completed', at, data: completed }),
      ),
      true,
    );
    // A renamed field, and the wrong envelope form, are caught.
    const renamed = { ...processed, tags: processed.ai_tags, ai_tags: undefined };
    assert.equal(
      validate('document.processed')(
        eventEnvelope({ id: 'evt_3', name: 'document.processed', at, data: JSON.parse(JSON.stringify(renamed)) }),
      ),
      false,
    );
    assert.equal(
      validate('dag.execution.completed')(
        eventEnvelope({ id: 'evt_4', name: 'document.processed', at, data: completed }),
      ),
      false,
    );
  });
});
