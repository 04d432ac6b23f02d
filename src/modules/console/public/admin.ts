// Operators' views: webhooks with their delivery log and redeliver, API keys.
import { call, send } from './api.ts';
import { actionButton, formatDate, h, rerender, show } from './views.ts';

export async function webhooksView(id: string): Promise<void> {
  if (id) {
    const deliveries = await call(
      'listWebhookDeliveries',
      'GET',
      `/api/v1/webhooks/${encodeURIComponent(id)}/deliveries`,
    );
    const redeliver = (d: string) => () =>
      send('POST', `/api/v1/webhooks/${encodeURIComponent(id)}/deliveries/${encodeURIComponent(d)}/redeliver`).then(
        rerender,
      );
    const row = (d: (typeof deliveries.data)[number]) =>
      h(
        'tr',
        {},
        h('td', {}, d.event),
        h('td', {}, d.status),
        h('td', {}, String(d.response_status ?? '–')),
        h('td', { class: 'wide' }, formatDate(d.created_at)),
        h('td', {}, actionButton('Redeliver', redeliver(d.id), { 'aria-label': `Redeliver ${d.event}` })),
      );
    return show(
      h('h2', {}, 'Deliveries'),
      h('table', { 'aria-label': 'Deliveries' }, h('tbody', {}, ...deliveries.data.map(row))),
    );
  }
  const { webhooks } = await call('listWebhooks', 'GET', '/api/v1/webhooks');
  show(
    h('h2', {}, 'Webhooks'),
    h(
      'ul',
      {},
      ...webhooks.map((w) =>
        h('li', {}, h('a', { href: `#/webhooks/${w.id}` }, w.url), ` · ${w.status} · ${w.events.join(', ')}`),
      ),
    ),
  );
}

export async function keysView(): Promise<void> {
  const keys = await call('listApiKeys', 'GET', '/api/v1/api-keys');
  const row = (k: (typeof keys.data)[number]) =>
    h(
      'tr',
      {},
      h('td', {}, k.name),
      h('td', {}, `${k.prefix}…`),
      h('td', {}, k.environment),
      h('td', { class: 'wide' }, k.last_used_at ? formatDate(k.last_used_at) : 'never used'),
    );
  show(h('h2', {}, 'API keys'), h('table', { 'aria-label': 'API keys' }, h('tbody', {}, ...keys.data.map(row))));
}
