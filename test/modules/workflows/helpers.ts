import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../../jobs/helpers.ts';
import type { TestApp } from '../../support/app.ts';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** The workflow API of one tenant (or any headers), through HTTP. */
export function workflowApi(ctx: () => TestApp, headers: () => Record<string, string>) {
  const call = (method: Method, url: string, payload?: unknown, as: Record<string, string> = headers()) =>
    ctx().app.inject({
      method,
      url: `/api/v1${url}`,
      headers: as,
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
  const create = async (body: unknown, activate = false): Promise<string> => {
    const res = await call('POST', '/dag/workflows', body);
    assert.equal(res.statusCode, 201, res.body);
    const id = res.json().id as string;
    if (activate) assert.equal((await call('PUT', `/dag/workflows/${id}`, { status: 'active' })).statusCode, 200);
    return id;
  };
  const run = async (workflowId: string, triggerData: unknown = {}): Promise<string> => {
    const res = await call('POST', `/dag/workflows/${workflowId}/execute`, { trigger_data: triggerData });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().execution_id as string;
  };
  const execution = async (id: string) => (await call('GET', `/dag/executions/${id}`)).json();
  // Polls the row (not the API, whose rate limit a tight poll would exhaust), then answers through the API.
  const until = async (id: string, statuses: string[], timeoutMs = 20_000) => {
    const db = ctx().container.database.db;
    await waitFor(
      async () =>
        statuses.includes(
          (await db.selectFrom('workflow_executions').select('status').where('id', '=', id).executeTakeFirst())
            ?.status ?? '',
        ),
      `execution ${id} to be ${statuses.join('/')}`,
      timeoutMs,
    );
    return execution(id);
  };
  const finished = (id: string, timeoutMs?: number) => until(id, ['completed', 'failed', 'cancelled'], timeoutMs);
  return { call, create, run, execution, until, finished };
}

/** The workflow definitions of docs/workflows.md, by the name after `workflow:` on their code fence. */
export function guideExamples(): Record<string, Record<string, unknown>> {
  const doc = fs.readFileSync(
    path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/workflows.md'),
    'utf8',
  );
  const out: Record<string, Record<string, unknown>> = {};
  for (const match of doc.matchAll(/```json workflow:([\w-]+)\n([\s\S]*?)```/g)) out[match[1]!] = JSON.parse(match[2]!);
  return out;
}

/** A plain HTTP server on 127.0.0.1 recording requests; `respond` decides each answer. */
export async function startReceiver(
  respond: (req: { path: string; body: string; headers: http.IncomingHttpHeaders }) => {
    status: number;
    body?: unknown;
    delayMs?: number;
  } = () => ({ status: 200, body: { ok: true } }),
) {
  const requests: { path: string; body: string; headers: http.IncomingHttpHeaders }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const seen = { path: req.url ?? '/', body: Buffer.concat(chunks).toString('utf8'), headers: req.headers };
      requests.push(seen);
      const answer = respond(seen);
      const send = () => {
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer.body ?? {}));
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The author's message inside a `notification` node's mail text (the layout puts it after its lead line, before the signature). */
export function messageOf(body: string): string {
  const match = /sends this message:\n\n([\s\S]*?)\n\n-- \n/.exec(body);
  return match ? match[1]! : `(no message in: ${body})`;
}

/** Rows of the mail outbox sent to an address. */
export async function mailTo(t: TestApp, tenantId: string, to: string) {
  return t.container.database.db
    .selectFrom('mail_outbox')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('to_address', '=', to)
    .orderBy('created_at')
    .execute();
}

/** Data of the tenant's events of one name. */
export async function eventsNamed(t: TestApp, tenantId: string, name: string): Promise<Record<string, unknown>[]> {
  const rows = await t.container.database.db
    .selectFrom('events')
    .select('data')
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .orderBy('created_at')
    .execute();
  return rows.map((r) => JSON.parse(String(r.data)));
}
