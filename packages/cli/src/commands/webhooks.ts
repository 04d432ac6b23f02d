import { parseArgs } from 'node:util';
import type { Webhook } from '@docuvault/sdk';
import { clientFor } from '../config.ts';
import { EXIT, type Io, output, table, UsageError } from '../io.ts';

/** webhooks [list] | deliveries <id> | redeliver <id> <delivery-id> | test <id> */
export async function webhooksCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
  const [action = 'list', id, deliveryId] = positionals;
  const json = values.json ?? false;
  const client = await clientFor(io);
  if (action === 'list') {
    const hooks: Webhook[] = [];
    for await (const hook of client.paginate('listWebhooks', { query: { page_size: 100 } })) hooks.push(hook);
    output(io, json, hooks, () =>
      hooks.length ? table(hooks.map((h) => [h.id, h.status, h.url, h.events.join(',')])) : 'no webhooks',
    );
    return EXIT.ok;
  }
  if (!id) throw new UsageError(`webhooks ${action} needs a webhook id`);
  if (action === 'deliveries') {
    const answer = await client.call('listWebhookDeliveries', { path: { id }, query: { page_size: 50 } });
    output(io, json, answer, () =>
      table(
        answer.data.map((d) => [
          d.id,
          d.event,
          d.status,
          String(d.response_status ?? '-'),
          `attempt ${d.attempt}`,
          d.created_at,
        ]),
      ),
    );
    return EXIT.ok;
  }
  if (action === 'test') {
    const answer = await client.call('testWebhook', { path: { id } });
    output(io, json, answer, () => 'test event queued');
    return EXIT.ok;
  }
  if (action === 'redeliver') {
    if (!deliveryId) throw new UsageError('webhooks redeliver needs a webhook id and a delivery id');
    const answer = await client.call('redeliverWebhookDelivery', { path: { id, delivery_id: deliveryId } });
    output(io, json, answer, () => 'redelivery queued');
    return EXIT.ok;
  }
  throw new UsageError(`unknown webhooks action "${action}"`);
}
