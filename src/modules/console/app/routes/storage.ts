// Storage targets and migrations: the tenant's provider and targets, a migration to another target
// followed live with its progress, cancel and retry, and the history. These routes take the
// service's administrator key (not a tenant credential): it is asked for here, kept in this page's
// memory only, and sent through the typed SDK. Owners, admins and API keys see the page.
import { useState } from 'preact/hooks';
import { DocuVault } from '../../../../../packages/sdk/src/client.ts';
import { formatBytes, t } from '../i18n.ts';
import { client, type OperationResponse } from '../sdk.ts';
import { ErrorLine, h } from '../ui.ts';
import { attempt, Field, Loading, Progress, StatusBadge, useLoad, when } from './account-ui.ts';

type Migration = OperationResponse<'getAdminStorageMigration'>;
const RUNNING = /^(pending|running|copying|verifying|in_progress|queued|cutover|purging)$/;

export default function Storage() {
  const [adminKey, setAdminKey] = useState('');
  const me = useLoad(() => client().call('getAuthMe'));
  const unlock = (e: Event) => {
    e.preventDefault();
    setAdminKey(String(new FormData(e.target as HTMLFormElement).get('key')));
  };
  return h(
    'div',
    { class: 'account' },
    h('h1', {}, t('storage.title')),
    !me.data
      ? h(Loading, { error: me.error })
      : adminKey
        ? h(Targets, {
            admin: new DocuVault({ baseUrl: location.origin }),
            adminKey,
            tenantId: me.data.tenant.id,
            lock: () => setAdminKey(''),
          })
        : h(
            'form',
            { class: 'card row', onSubmit: unlock, 'aria-label': t('storage.unlock') },
            h('p', { class: 'muted' }, t('storage.why')),
            h(
              Field,
              { label: t('storage.key') },
              h('input', { name: 'key', type: 'password', required: true, autocomplete: 'off' }),
            ),
            h('button', { type: 'submit', class: 'primary' }, t('storage.unlock')),
          ),
  );
}

function Targets({
  admin,
  adminKey,
  tenantId,
  lock,
}: {
  admin: DocuVault;
  adminKey: string;
  tenantId: string;
  lock: () => void;
}) {
  const headers = { authorization: `Bearer ${adminKey}` };
  const path = { tenant_id: tenantId };
  const config = useLoad(() => admin.call('getAdminStorageConfig', { path, headers }), [adminKey]);
  const current = useLoad(
    () =>
      admin.call('getAdminStorageMigration', { path, headers }).catch((e: { status?: number }) => {
        if (e.status === 404) return null;
        throw e;
      }),
    [adminKey],
    (m) => Boolean(m && RUNNING.test(m.status)),
  );
  const history = useLoad(() => admin.call('getAdminStorageMigrationHistory', { path, headers }), [adminKey]);
  const [error, setError] = useState<unknown>(null);
  const reload = () => {
    config.reload();
    current.reload();
    history.reload();
  };
  const migrate = (e: Event) => {
    e.preventDefault();
    const target = new FormData(e.target as HTMLFormElement).get('target') as 'shared' | 'dedicated' | 'customer';
    if (!confirm(t('storage.confirmMigrate', { target }))) return;
    void attempt(
      () => admin.call('postAdminStorageConfigMigrate', { path, headers, body: { target_provider: target } }),
      setError,
    ).then((ok) => ok && reload());
  };
  const act = (op: 'cancelAdminStorageMigration' | 'retryAdminStorageMigration', m: Migration) =>
    void attempt(
      () =>
        op === 'cancelAdminStorageMigration'
          ? admin.call(op, { path: { migration_id: m.id }, headers, body: {} })
          : admin.call(op, { path: { migration_id: m.id }, headers }),
      setError,
    ).then((ok) => ok && reload());
  if (config.error)
    return h(
      'div',
      {},
      h(ErrorLine, { error: config.error }),
      h('button', { type: 'button', onClick: lock }, t('storage.lock')),
    );
  if (!config.data) return h(Loading, { error: null });
  const c = config.data;
  const targets = [
    { name: 'shared', configured: c.targets.shared.configured, where: '' },
    { name: 'dedicated', configured: c.targets.dedicated.configured, where: c.targets.dedicated.location ?? '' },
    {
      name: 'customer',
      configured: c.targets.customer.configured,
      where: [c.targets.customer.endpoint, c.targets.customer.bucket, c.targets.customer.prefix]
        .filter(Boolean)
        .join(' / '),
    },
  ];
  const m = current.data;
  return h(
    'div',
    { class: 'stack' },
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'targets-title' },
      h('h2', { id: 'targets-title', class: 'card-title' }, t('storage.targets')),
      h('p', {}, t('storage.current', { provider: c.current_provider, write: c.write_provider })),
      h(
        'ul',
        { class: 'list' },
        targets.map((x) =>
          h(
            'li',
            { key: x.name },
            h('span', {}, h('strong', {}, x.name), x.where ? h('span', { class: 'muted break' }, ` ${x.where}`) : null),
            h(StatusBadge, {
              value: x.name === c.current_provider ? 'active' : x.configured ? 'ready' : 'not configured',
            }),
          ),
        ),
      ),
      h(
        'form',
        { class: 'row', onSubmit: migrate, 'aria-label': t('storage.migrate') },
        h(
          Field,
          { label: t('storage.target') },
          h(
            'select',
            { name: 'target' },
            c.available_targets
              .filter((x) => x !== c.current_provider)
              .map((x) => h('option', { key: x, value: x }, x)),
          ),
        ),
        h('button', { type: 'submit', class: 'primary' }, t('storage.migrate')),
        h('button', { type: 'button', onClick: lock }, t('storage.lock')),
      ),
      h(ErrorLine, { error }),
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'migration-title' },
      h('h2', { id: 'migration-title', class: 'card-title' }, t('storage.migration')),
      current.error
        ? h(ErrorLine, { error: current.error })
        : !m
          ? h('p', { class: 'muted' }, t('storage.noMigration'))
          : h(
              'div',
              { 'aria-live': 'polite' },
              h(
                'p',
                {},
                `${m.source_provider} → ${m.target_provider} `,
                h(StatusBadge, { value: m.status }),
                ` ${m.phase}`,
              ),
              h(Progress, {
                label: t('storage.progress'),
                value: m.migrated_files,
                max: m.total_files,
                text: t('storage.files', {
                  done: m.migrated_files,
                  total: m.total_files,
                  failed: m.failed_files,
                  bytes: formatBytes(m.migrated_bytes),
                  totalBytes: formatBytes(m.total_bytes),
                  pct: Math.round(m.progress_percent),
                }),
              }),
              m.current_file ? h('p', { class: 'muted break' }, m.current_file) : null,
              m.error ? h('p', { class: 'error' }, m.error) : null,
              h(
                'div',
                { class: 'actions' },
                RUNNING.test(m.status)
                  ? h(
                      'button',
                      { type: 'button', class: 'danger', onClick: () => act('cancelAdminStorageMigration', m) },
                      t('storage.cancel'),
                    )
                  : null,
                m.failed_files > 0 || m.status === 'failed'
                  ? h(
                      'button',
                      { type: 'button', onClick: () => act('retryAdminStorageMigration', m) },
                      t('storage.retry'),
                    )
                  : null,
              ),
            ),
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'mhistory-title' },
      h('h2', { id: 'mhistory-title', class: 'card-title' }, t('storage.history')),
      history.data
        ? history.data.migrations.length === 0
          ? h('p', { class: 'muted' }, t('storage.noHistory'))
          : h(
              'ul',
              { class: 'list' },
              history.data.migrations.map((x) =>
                h(
                  'li',
                  { key: x.id },
                  h(
                    'span',
                    {},
                    `${x.source_provider} → ${x.target_provider} · ${t('storage.filesShort', { done: x.migrated_files, total: x.total_files })}`,
                  ),
                  h(
                    'span',
                    {},
                    h(StatusBadge, { value: x.status }),
                    ' ',
                    h('span', { class: 'muted' }, when(x.created_at)),
                  ),
                ),
              ),
            )
        : h(Loading, { error: history.error }),
    ),
  );
}
