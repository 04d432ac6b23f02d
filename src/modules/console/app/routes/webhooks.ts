// Webhooks: create (the signing secret shown once), send a test, the delivery log with redeliver,
// set or rotate the secret, pause and activate, delete. Owners, admins and API keys only.
import { useState } from 'preact/hooks';
import { t } from '../i18n.ts';
import { client, type OperationResponse } from '../sdk.ts';
import { ErrorLine, h, href, type ViewProps } from '../ui.ts';
import { attempt, Field, Loading, StatusBadge, useLoad, when } from './account-ui.ts';

type Hook = OperationResponse<'listWebhooks'>['webhooks'][number];
type Delivery = OperationResponse<'listWebhookDeliveries'>['data'][number];

export default function Webhooks({ route }: ViewProps) {
  const hooks = useLoad(() => client().call('listWebhooks', { query: { page_size: 100 } }));
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const create = (e: Event) => {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const data = new FormData(form);
    const events = String(data.get('events'))
      .split(/[\s,]+/)
      .filter(Boolean);
    void attempt(async () => {
      const made = await client().call('createWebhook', { body: { url: String(data.get('url')), events } });
      setSecret({ url: made.url, secret: made.secret });
      form.reset();
      hooks.reload();
    }, setError);
  };
  const selected = route.arg;
  return h(
    'div',
    { class: 'account' },
    h('h1', {}, t('hooks.title')),
    h(
      'form',
      { class: 'card row', onSubmit: create, 'aria-label': t('hooks.create') },
      h(
        Field,
        { label: t('hooks.url') },
        h('input', { name: 'url', type: 'url', required: true, placeholder: 'https://' }),
      ),
      h(
        Field,
        { label: t('hooks.events') },
        h('input', { name: 'events', required: true, value: 'document.uploaded', 'aria-describedby': 'events-hint' }),
      ),
      h('button', { type: 'submit', class: 'primary' }, t('hooks.create')),
      h('p', { id: 'events-hint', class: 'muted hint' }, t('hooks.eventsHint')),
    ),
    secret ? h(SecretOnce, { title: secret.url, secret: secret.secret }) : null,
    h(ErrorLine, { error }),
    !hooks.data
      ? h(Loading, { error: hooks.error })
      : hooks.data.webhooks.length === 0
        ? h('p', { class: 'muted' }, t('hooks.none'))
        : h(
            'ul',
            { class: 'stack', 'aria-label': t('hooks.title') },
            hooks.data.webhooks.map((w) =>
              h(HookCard, { key: w.id, hook: w, open: w.id === selected, onChange: hooks.reload }),
            ),
          ),
  );
}

export function SecretOnce({ title, secret }: { title: string; secret: string }) {
  return h(
    'div',
    { class: 'card', role: 'status' },
    h('p', {}, h('strong', {}, title), ': ', t('hooks.secretOnce')),
    h('p', { class: 'key-once' }, secret),
    h('button', { type: 'button', onClick: () => void navigator.clipboard?.writeText(secret) }, t('acct.copy')),
  );
}

function HookCard({ hook, open, onChange }: { hook: Hook; open: boolean; onChange: () => void }) {
  const [error, setError] = useState<unknown>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [setting, setSetting] = useState(false);
  const [round, setRound] = useState(0);
  const act = (work: () => Promise<unknown>) =>
    void attempt(work, setError).then((ok) => {
      if (ok) {
        onChange();
        setRound((r) => r + 1);
      }
    });
  const test = () =>
    act(() =>
      client()
        .call('testWebhook', { path: { id: hook.id } })
        .then(() => (location.hash = href('webhooks', hook.id))),
    );
  const toggle = () =>
    act(() =>
      client().call('updateWebhook', {
        path: { id: hook.id },
        body: { status: hook.status === 'active' ? 'paused' : 'active' },
      }),
    );
  const rotate = (e: Event) => {
    e.preventDefault();
    const value = String(new FormData(e.target as HTMLFormElement).get('secret') ?? '');
    act(async () => {
      const r = await client().call('postWebhookSecret', {
        path: { id: hook.id },
        body: value ? { secret: value } : {},
      });
      setSecret(r.secret);
      setSetting(false);
    });
  };
  const remove = () => {
    if (confirm(t('hooks.confirmDelete', { url: hook.url })))
      act(() => client().call('deleteWebhook', { path: { id: hook.id } }));
  };
  const headId = `hook-${hook.id}`;
  return h(
    'li',
    { class: 'card', 'aria-labelledby': headId },
    h(
      'div',
      { class: 'row spread' },
      h('h2', { id: headId, class: 'card-title break' }, hook.url),
      h(StatusBadge, { value: hook.status }),
    ),
    h('p', { class: 'muted' }, hook.events.join(', ')),
    hook.status_reason ? h('p', { class: 'muted' }, hook.status_reason) : null,
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        { type: 'button', onClick: test, 'aria-label': t('hooks.testOf', { url: hook.url }) },
        t('hooks.test'),
      ),
      hook.status === 'active'
        ? h('button', { type: 'button', onClick: toggle }, t('hooks.pause'))
        : h('button', { type: 'button', onClick: toggle }, t('hooks.activate')),
      h('button', { type: 'button', onClick: () => setSetting(!setting), 'aria-expanded': setting }, t('hooks.secret')),
      h(
        'a',
        { class: 'button', href: open ? href('webhooks') : href('webhooks', hook.id), 'aria-expanded': open },
        open ? t('hooks.hideLog') : t('hooks.log'),
      ),
      h(
        'button',
        { type: 'button', class: 'danger', onClick: remove, 'aria-label': t('hooks.deleteOf', { url: hook.url }) },
        t('hooks.delete'),
      ),
    ),
    setting
      ? h(
          'form',
          { class: 'row', onSubmit: rotate, 'aria-label': t('hooks.secret') },
          h(
            Field,
            { label: t('hooks.secretValue') },
            h('input', { name: 'secret', type: 'password', minLength: 16, autocomplete: 'off' }),
          ),
          h('button', { type: 'submit', class: 'primary' }, t('hooks.secretSave')),
        )
      : null,
    secret ? h(SecretOnce, { title: t('hooks.newSecret'), secret }) : null,
    h(ErrorLine, { error }),
    open ? h(Deliveries, { hook, round }) : null,
  );
}

function Deliveries({ hook, round }: { hook: Hook; round: number }) {
  const log = useLoad(
    () => client().call('listWebhookDeliveries', { path: { id: hook.id }, query: { page_size: 50 } }),
    [hook.id, round],
    (d) => d.data.some((x) => x.status === 'pending'),
  );
  const [error, setError] = useState<unknown>(null);
  const redeliver = (d: Delivery) =>
    void attempt(
      () => client().call('redeliverWebhookDelivery', { path: { id: hook.id, delivery_id: d.id } }),
      setError,
    ).then((ok) => ok && log.reload());
  if (!log.data) return h(Loading, { error: log.error });
  return h(
    'section',
    { 'aria-label': t('hooks.logOf', { url: hook.url }) },
    h('h3', {}, t('hooks.log')),
    h(ErrorLine, { error }),
    log.data.data.length === 0
      ? h('p', { class: 'muted' }, t('hooks.noDeliveries'))
      : h(
          'div',
          { class: 'table-wrap', tabIndex: 0, role: 'region', 'aria-label': t('hooks.log') },
          h(
            'table',
            { class: 'data' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                [
                  'hooks.col.event',
                  'hooks.col.trigger',
                  'hooks.col.status',
                  'hooks.col.answer',
                  'hooks.col.when',
                  'hooks.col.action',
                ].map((k) => h('th', { key: k, scope: 'col' }, t(k as 'hooks.col.event'))),
              ),
            ),
            h(
              'tbody',
              {},
              log.data.data.map((d) =>
                h(
                  'tr',
                  { key: d.id },
                  h('td', {}, d.event),
                  h('td', {}, t('hooks.trigger', { trigger: d.trigger, n: d.attempt })),
                  h('td', {}, h(StatusBadge, { value: d.status })),
                  h(
                    'td',
                    {},
                    [
                      d.response_status ? `HTTP ${d.response_status}` : '',
                      d.duration_ms !== null ? `${d.duration_ms} ms` : '',
                    ]
                      .filter(Boolean)
                      .join(' · '),
                    d.error ? h('div', { class: 'muted break' }, d.error) : null,
                  ),
                  h('td', {}, when(d.created_at)),
                  h(
                    'td',
                    {},
                    h(
                      'button',
                      {
                        type: 'button',
                        class: 'small',
                        onClick: () => redeliver(d),
                        'aria-label': t('hooks.redeliverOf', { event: d.event, when: when(d.created_at) }),
                      },
                      t('hooks.redeliver'),
                    ),
                  ),
                ),
              ),
            ),
          ),
        ),
  );
}
