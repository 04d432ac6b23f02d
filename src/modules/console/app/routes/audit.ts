// The audit trail of the tenant (owners and admins): who did what, when, from where and the outcome,
// filtered by actor, action, document and dates (all in the address), paged, exported as CSV or NDJSON.
import { t } from '../i18n.ts';
import { client } from '../sdk.ts';
import { h, href, replaceRoute, type ViewProps } from '../ui.ts';
import { Field, Loading, saveResponse, useLoad } from './account-ui.ts';
import { AuditTable } from './document-records.ts';

const FILTERS = ['actor', 'action', 'document_id', 'from', 'to'] as const;

export default function Audit({ route }: ViewProps) {
  const p = route.params;
  const query = Object.fromEntries(FILTERS.map((k) => [k, p.get(k) ?? undefined]).filter(([, v]) => v)) as Record<
    (typeof FILTERS)[number],
    string | undefined
  >;
  const iso = (d: string | undefined, end = false) =>
    d ? new Date(`${d}T${end ? '23:59:59.999' : '00:00:00'}Z`).toISOString() : undefined;
  const apiQuery = { ...query, from: iso(query.from), to: iso(query.to, true) };
  const page = Number(p.get('page') ?? 1) || 1;
  const records = useLoad(() => client().audit.list({ ...apiQuery, page, page_size: 50 }), [p.toString()]);
  const apply = (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.target as HTMLFormElement);
    replaceRoute(href('audit', '', Object.fromEntries(FILTERS.map((k) => [k, String(data.get(k) ?? '')]))));
  };
  const exportAs = (format: 'csv' | 'ndjson') =>
    void client()
      .audit.exportRaw({ ...apiQuery, format })
      .then((res) => saveResponse(res, `audit.${format}`));
  const go = (n: number) => replaceRoute(href('audit', '', { ...query, page: String(n) }));
  const d = records.data;
  return h(
    'div',
    { class: 'account wide' },
    h('h1', {}, t('audit.title')),
    h(
      'form',
      { class: 'card row', onSubmit: apply, 'aria-label': t('audit.filters') },
      h(Field, { label: t('audit.actor') }, h('input', { name: 'actor', value: query.actor ?? '' })),
      h(
        Field,
        { label: t('audit.action') },
        h('input', { name: 'action', value: query.action ?? '', placeholder: 'document.download' }),
      ),
      h(Field, { label: t('audit.document') }, h('input', { name: 'document_id', value: query.document_id ?? '' })),
      h(Field, { label: t('audit.from') }, h('input', { name: 'from', type: 'date', value: query.from ?? '' })),
      h(Field, { label: t('audit.to') }, h('input', { name: 'to', type: 'date', value: query.to ?? '' })),
      h('button', { type: 'submit', class: 'primary' }, t('audit.apply')),
      h('button', { type: 'button', onClick: () => exportAs('csv') }, t('audit.csv')),
      h('button', { type: 'button', onClick: () => exportAs('ndjson') }, t('audit.ndjson')),
    ),
    !d
      ? h(Loading, { error: records.error })
      : h(
          'div',
          { class: 'card' },
          h(
            'p',
            { class: 'muted', role: 'status' },
            t(d.total_capped ? 'audit.countCapped' : 'audit.count', { n: d.total }),
          ),
          h(AuditTable, { records: d.data, label: t('audit.title') }),
          h(
            'div',
            { class: 'row' },
            page > 1 ? h('button', { type: 'button', onClick: () => go(page - 1) }, t('audit.prev')) : null,
            page * d.page_size < d.total
              ? h('button', { type: 'button', onClick: () => go(page + 1) }, t('audit.next'))
              : null,
          ),
        ),
  );
}
