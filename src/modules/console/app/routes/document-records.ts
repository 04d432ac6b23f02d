// The document's records (docs/versions.md, docs/audit.md): its versions (download any, upload a
// new one, restore an earlier one), its audit trail, and the legal holds that cover it.
import { useEffect, useState } from 'preact/hooks';
import { formatBytes, t } from '../i18n.ts';
import { OPERATIONS } from '../../../../../packages/sdk/src/generated/api-types.ts';
import { client, credentialHeaders, DocuVaultError, type OperationResponse } from '../sdk.ts';
import type { ComponentChildren } from 'preact';
import { type Doc, ErrorLine, h, type Me } from '../ui.ts';
import { attempt, Loading, saveResponse, StatusBadge, useLoad, when } from './account-ui.ts';

type AuditRecord = OperationResponse<'getAudit'>['data'][number];
const ADMINS = ['owner', 'admin', 'api_key'];

function panel(title: string, id: string, ...children: ComponentChildren[]) {
  return h(
    'section',
    { class: 'card', 'aria-labelledby': id },
    h('h2', { id, class: 'card-title' }, title),
    ...children,
  );
}

export function DocumentRecords({ doc, me, onChange }: { doc: Doc; me: Me; onChange: () => void }) {
  // A new or restored version is also a new audit record: the trail is read again after each.
  const [round, setRound] = useState(0);
  const changed = () => {
    setRound((r) => r + 1);
    onChange();
  };
  return [
    h(Versions, { key: 'v', doc, canEdit: me.role !== 'viewer', onChange: changed }),
    h(DocumentAudit, { key: 'a', doc, round }),
    ADMINS.includes(me.role) ? h(Holds, { key: 'h', doc }) : null,
  ];
}

/**
 * Sends a new version as a browser form. The SDK's `uploadVersion` streams its multipart body,
 * which browsers cannot send over HTTP/1.1, so this one request goes with fetch and the tab's
 * credential (refreshed once through the SDK on a 401), answering the SDK's typed result or error.
 */
async function sendVersion(
  id: string,
  file: File,
  refreshed = false,
): Promise<OperationResponse<'uploadDocumentVersion'>> {
  const form = new FormData();
  form.append('file', file, file.name);
  const res = await fetch(client().url(OPERATIONS.uploadDocumentVersion.path.replace('{id}', encodeURIComponent(id))), {
    method: 'POST',
    body: form,
    headers: { ...credentialHeaders(), accept: 'application/json', 'idempotency-key': crypto.randomUUID() },
  });
  if (res.status === 401 && !refreshed) {
    await client().call('getAuthMe');
    return sendVersion(id, file, true);
  }
  const body = (await res.json().catch(() => null)) as { error: string; code: string; message: string } | null;
  if (res.ok) return body as unknown as OperationResponse<'uploadDocumentVersion'>;
  throw new DocuVaultError(
    res.status,
    body ?? { error: 'http_error', code: 'HTTP_ERROR', message: `The service answered ${res.status}.` },
    {
      requestId: res.headers.get('x-request-id') ?? undefined,
    },
  );
}

function Versions({ doc, canEdit, onChange }: { doc: Doc; canEdit: boolean; onChange: () => void }) {
  const list = useLoad(() => client().documents.versions(doc.id), [doc.id]);
  const [error, setError] = useState<unknown>(null);
  const [note, setNote] = useState('');
  const done = (ok: boolean) => {
    if (ok) {
      list.reload();
      onChange();
    }
  };
  const upload = (e: Event) => {
    const input = e.target as HTMLInputElement;
    const file = input.files?.[0];
    if (!file) return;
    setNote(t('versions.sending', { name: file.name }));
    void attempt(async () => {
      const v = await sendVersion(doc.id, file);
      setNote(v.created ? t('versions.made', { n: v.number }) : t('versions.same', { n: v.number }));
    }, setError).then((ok) => {
      input.value = '';
      if (!ok) setNote('');
      done(ok);
    });
  };
  const restore = (n: number) => {
    if (!confirm(t('versions.confirmRestore', { n }))) return;
    void attempt(async () => {
      const r = await client().call('restoreDocumentVersion', { path: { id: doc.id, number: String(n) } });
      setNote(t('versions.restored', { n: r.number }));
    }, setError).then(done);
  };
  const download = (n: number, name: string) =>
    void attempt(async () => saveResponse(await client().documents.downloadVersion(doc.id, n), name), setError);
  return panel(
    t('versions.title'),
    'versions-title',
    list.data
      ? h(
          'ol',
          { class: 'list', 'aria-label': t('versions.title') },
          [...list.data.versions].reverse().map((v) =>
            h(
              'li',
              { key: v.number },
              h(
                'span',
                {},
                h('strong', {}, t('versions.number', { n: v.number })),
                ' ',
                v.current ? h('span', { class: 'badge ok' }, t('versions.current')) : null,
                h(
                  'div',
                  { class: 'muted break' },
                  `${v.filename} · ${formatBytes(v.file_size)} · ${when(v.created_at)}`,
                ),
              ),
              h(
                'span',
                { class: 'actions' },
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'small',
                    onClick: () => download(v.number, v.filename),
                    'aria-label': t('versions.downloadOf', { n: v.number }),
                  },
                  t('doc.download'),
                ),
                canEdit && !v.current
                  ? h(
                      'button',
                      {
                        type: 'button',
                        class: 'small',
                        onClick: () => restore(v.number),
                        'aria-label': t('versions.restoreOf', { n: v.number }),
                      },
                      t('versions.restore'),
                    )
                  : null,
              ),
            ),
          ),
        )
      : h(Loading, { error: list.error }),
    canEdit
      ? h(
          'label',
          { class: 'button' },
          t('versions.upload'),
          h('input', { type: 'file', class: 'visually-hidden', onChange: upload }),
        )
      : null,
    note ? h('p', { role: 'status' }, note) : null,
    h(ErrorLine, { error }),
  );
}

function DocumentAudit({ doc, round }: { doc: Doc; round: number }) {
  const records = useLoad(() => client().audit.ofDocument(doc.id, { page_size: 20 }), [doc.id, doc.updated_at, round]);
  return panel(
    t('audit.ofDocument'),
    'doc-audit-title',
    records.data
      ? h(AuditTable, { records: records.data.data, label: t('audit.ofDocument'), compact: true })
      : h(Loading, { error: records.error }),
  );
}

// The people of the tenant, fetched once per page load to name the actors of audit records
// (ids otherwise; a member who may not list users sees ids).
let people: Promise<Map<string, string>> | null = null;
function usePeople(): Map<string, string> {
  const [names, setNames] = useState<Map<string, string>>(new Map());
  useEffect(() => {
    people ??= client()
      .call('listUsers', { query: { page_size: 100 } })
      .then((a) => new Map(a.data.map((u) => [u.id, u.name])))
      .catch(() => new Map());
    void people.then(setNames);
  }, []);
  return names;
}

/** Audit records as a table: when, who, what, outcome, from where. */
export function AuditTable({ records, label, compact }: { records: AuditRecord[]; label: string; compact?: boolean }) {
  const names = usePeople();
  const who = (r: AuditRecord) =>
    r.actor_id
      ? (r.actor_type === 'user' && names.get(r.actor_id)) || `${r.actor_type} …${r.actor_id.slice(-6)}`
      : r.actor_type;
  if (records.length === 0) return h('p', { class: 'muted' }, t('audit.none'));
  const cols = compact
    ? (['when', 'who', 'what', 'outcome'] as const)
    : (['when', 'who', 'what', 'target', 'outcome', 'where'] as const);
  return h(
    'div',
    { class: 'table-wrap', tabIndex: 0, role: 'region', 'aria-label': label },
    h(
      'table',
      { class: 'data' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          cols.map((c) => h('th', { key: c, scope: 'col' }, t(`audit.col.${c}`))),
        ),
      ),
      h(
        'tbody',
        {},
        records.map((r) =>
          h(
            'tr',
            { key: r.id },
            h('td', {}, when(r.at)),
            h('td', { class: 'break', title: r.actor_id ?? undefined }, who(r)),
            h('td', {}, r.action),
            compact
              ? null
              : h('td', { class: 'break' }, r.target_type ? `${r.target_type} …${r.target_id?.slice(-6) ?? ''}` : ''),
            h('td', {}, h(StatusBadge, { value: r.outcome }), r.status ? ` ${r.status}` : ''),
            compact
              ? null
              : h(
                  'td',
                  { class: 'break muted' },
                  [r.ip, r.request_id ? t('error.request', { id: r.request_id }) : ''].filter(Boolean).join(' · '),
                ),
          ),
        ),
      ),
    ),
  );
}

function Holds({ doc }: { doc: Doc }) {
  const holds = useLoad(
    () => client().call('listLegalHolds', { query: { status: 'active', page_size: 100 } }),
    [doc.id],
  );
  const [error, setError] = useState<unknown>(null);
  const mine = (holds.data?.data ?? []).filter(
    (x) => x.document_ids.includes(doc.id) || (doc.folder_id !== null && x.folder_ids.includes(doc.folder_id)),
  );
  const place = (e: Event) => {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const name = String(new FormData(form).get('name'));
    void attempt(() => client().call('createLegalHold', { body: { name, document_ids: [doc.id] } }), setError).then(
      (ok) => {
        if (ok) {
          form.reset();
          holds.reload();
        }
      },
    );
  };
  const release = (id: string, name: string) => {
    if (confirm(t('holds.confirmRelease', { name })))
      void attempt(() => client().call('deleteLegalHold', { path: { id } }), setError).then(
        (ok) => ok && holds.reload(),
      );
  };
  return panel(
    t('holds.title'),
    'holds-title',
    !holds.data
      ? h(Loading, { error: holds.error })
      : mine.length === 0
        ? h('p', { class: 'muted' }, t('holds.none'))
        : h(
            'ul',
            { class: 'list', 'aria-label': t('holds.title') },
            mine.map((x) =>
              h(
                'li',
                { key: x.id },
                h(
                  'span',
                  {},
                  h('strong', {}, x.name),
                  ' ',
                  h(StatusBadge, { value: x.status }),
                  h(
                    'div',
                    { class: 'muted' },
                    t(x.document_ids.includes(doc.id) ? 'holds.direct' : 'holds.folder', { date: when(x.created_at) }),
                  ),
                ),
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'small',
                    onClick: () => release(x.id, x.name),
                    'aria-label': t('holds.releaseOf', { name: x.name }),
                  },
                  t('holds.release'),
                ),
              ),
            ),
          ),
    h(
      'form',
      { class: 'row', onSubmit: place, 'aria-label': t('holds.place') },
      h(
        'label',
        { class: 'field' },
        h('span', {}, t('holds.name')),
        h('input', { name: 'name', required: true, maxLength: 200 }),
      ),
      h('button', { type: 'submit' }, t('holds.place')),
    ),
    h(ErrorLine, { error }),
  );
}
