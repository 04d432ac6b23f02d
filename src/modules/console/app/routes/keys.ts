// API keys: create (the secret shown this once), list, revoke. Owners, admins and operators only
// (the navigation shows it to nobody else).
import { useEffect, useState } from 'preact/hooks';
import { formatDate, t } from '../i18n.ts';
import { client, type OperationResponse } from '../sdk.ts';
import { ErrorLine, h } from '../ui.ts';

type Key = OperationResponse<'listApiKeys'>['data'][number];

export default function Keys() {
  const [keys, setKeys] = useState<Key[] | null>(null);
  const [created, setCreated] = useState<OperationResponse<'createApiKey'> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = () =>
    void client()
      .call('listApiKeys', { query: { page_size: 100 } })
      .then((a) => setKeys(a.data), setError);
  useEffect(load, []);
  const create = (e: Event) => {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const data = new FormData(form);
    setError(null);
    client()
      .call('createApiKey', {
        body: { name: String(data.get('name')), environment: data.get('environment') === 'test' ? 'test' : 'live' },
      })
      .then((k) => {
        setCreated(k);
        form.reset();
        load();
      }, setError);
  };
  const revoke = (key: Key) => {
    if (!confirm(t('keys.confirmRevoke', { name: key.name }))) return;
    client()
      .call('deleteApiKey', { path: { id: key.id } })
      .then(() => {
        if (created?.id === key.id) setCreated(null);
        load();
      }, setError);
  };
  return h(
    'div',
    { class: 'side', style: { maxWidth: '52rem' } },
    h('h1', {}, t('keys.title')),
    h(
      'form',
      { class: 'card row', onSubmit: create, 'aria-label': t('keys.create') },
      h(
        'label',
        { class: 'field' },
        h('span', {}, t('keys.name')),
        h('input', { name: 'name', required: true, maxLength: 100 }),
      ),
      h(
        'label',
        { class: 'field' },
        h('span', {}, t('keys.env')),
        h(
          'select',
          { name: 'environment' },
          h('option', { value: 'live' }, 'live'),
          h('option', { value: 'test' }, 'test'),
        ),
      ),
      h('button', { type: 'submit', class: 'primary' }, t('keys.create')),
    ),
    created
      ? h(
          'div',
          { class: 'card', role: 'status' },
          h('p', {}, h('strong', {}, created.name), ': ', t('keys.once')),
          h('p', { class: 'key-once' }, created.key),
          h('button', { type: 'button', onClick: () => void navigator.clipboard?.writeText(created.key) }, 'Copy'),
        )
      : null,
    h(ErrorLine, { error }),
    keys && keys.length === 0 ? h('p', { class: 'muted' }, t('keys.none')) : null,
    keys
      ? h(
          'ul',
          { class: 'list card', 'aria-label': t('keys.title') },
          keys.map((k) =>
            h(
              'li',
              { key: k.id },
              h(
                'span',
                {},
                h('strong', {}, k.name),
                ' ',
                h('code', {}, `${k.prefix}…`),
                ' ',
                h(
                  'span',
                  { class: 'muted' },
                  `${k.environment} · ${k.last_used_at ? t('keys.lastUsed', { date: formatDate(k.last_used_at) }) : t('keys.never')}`,
                ),
              ),
              h(
                'button',
                {
                  type: 'button',
                  class: 'danger small',
                  'aria-label': t('keys.revokeOf', { name: k.name }),
                  onClick: () => revoke(k),
                },
                t('keys.revoke'),
              ),
            ),
          ),
        )
      : null,
  );
}
