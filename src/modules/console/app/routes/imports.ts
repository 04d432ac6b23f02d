// Import projects (Google Drive): create, scan, start, pause, resume, cancel, delete, each one's
// progress followed live, and the agents that run on what it imports with their runs.
// Team tier and above; owners, admins and API keys.
import { useState } from 'preact/hooks';
import { formatBytes, t } from '../i18n.ts';
import { client, type OperationResponse } from '../sdk.ts';
import { ErrorLine, h } from '../ui.ts';
import { attempt, Field, Loading, Progress, StatusBadge, useLoad, when } from './account-ui.ts';

type Project = OperationResponse<'listMigrationsProjects'>['data'][number];
/** One agent with its runs (the generated type reads the intersection wrongly, so it is said here). */
interface Agent {
  id: string;
  agent_type: string;
  phase: string;
  runs: {
    queued: number;
    awaiting_approval: number;
    applied: number;
    rejected: number;
    expired: number;
    failed: number;
  };
}
const LIVE = /^(scanning|in_progress)$/;

export default function Imports() {
  const projects = useLoad(
    () => client().call('listMigrationsProjects', { query: { page_size: 100 } }),
    [],
    (d) => d.data.some((p) => LIVE.test(p.status)),
  );
  const [error, setError] = useState<unknown>(null);
  const create = (e: Event) => {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const data = new FormData(form);
    const token = String(data.get('token'));
    const folders = String(data.get('folders'))
      .split(/[\s,]+/)
      .filter(Boolean);
    void attempt(
      () =>
        client().call('createMigrationsProject', {
          body: {
            name: String(data.get('name')),
            source_type: 'google_drive',
            config: { folder_ids: folders, ...(token ? { credentials: { access_token: token } } : {}) },
          },
        }),
      setError,
    ).then((ok) => {
      if (ok) {
        form.reset();
        projects.reload();
      }
    });
  };
  return h(
    'div',
    { class: 'account' },
    h('h1', {}, t('imports.title')),
    h(
      'form',
      { class: 'card row', onSubmit: create, 'aria-label': t('imports.create') },
      h(Field, { label: t('imports.name') }, h('input', { name: 'name', required: true, maxLength: 200 })),
      h(Field, { label: t('imports.folders') }, h('input', { name: 'folders' })),
      h(Field, { label: t('imports.token') }, h('input', { name: 'token', type: 'password', autocomplete: 'off' })),
      h('button', { type: 'submit', class: 'primary' }, t('imports.create')),
    ),
    h(ErrorLine, { error }),
    !projects.data
      ? h(Loading, { error: projects.error })
      : projects.data.data.length === 0
        ? h('p', { class: 'muted' }, t('imports.none'))
        : h(
            'ul',
            { class: 'stack', 'aria-label': t('imports.title') },
            projects.data.data.map((p) => h(ProjectCard, { key: p.id, project: p, onChange: projects.reload })),
          ),
  );
}

function ProjectCard({ project: p, onChange }: { project: Project; onChange: () => void }) {
  const [error, setError] = useState<unknown>(null);
  const [open, setOpen] = useState(false);
  const progress = useLoad(
    () => client().call('getMigrationsProjectProgress', { path: { id: p.id } }),
    [p.id, p.status],
    (d) => LIVE.test(d.status),
  );
  type Op =
    | 'postMigrationsProjectScan'
    | 'startMigrationsProject'
    | 'pauseMigrationsProject'
    | 'resumeMigrationsProject'
    | 'cancelMigrationsProject'
    | 'deleteMigrationsProject';
  const act = (op: Op) => {
    if (op === 'deleteMigrationsProject' && !confirm(t('imports.confirmDelete', { name: p.name }))) return;
    void attempt(() => client().call(op, { path: { id: p.id } } as never), setError).then((ok) => ok && onChange());
  };
  const buttons: [Op, string, boolean][] = [
    ['postMigrationsProjectScan', t('imports.scan'), /^(draft|configured|ready|failed)$/.test(p.status)],
    ['startMigrationsProject', t('imports.start'), p.status === 'ready'],
    ['pauseMigrationsProject', t('imports.pause'), p.status === 'in_progress'],
    ['resumeMigrationsProject', t('imports.resume'), p.status === 'paused'],
    ['cancelMigrationsProject', t('imports.cancel'), /^(scanning|in_progress|paused|ready)$/.test(p.status)],
    ['deleteMigrationsProject', t('imports.delete'), !LIVE.test(p.status)],
  ];
  const g = progress.data;
  const id = `project-${p.id}`;
  return h(
    'li',
    { class: 'card', 'aria-labelledby': id },
    h(
      'div',
      { class: 'row spread' },
      h('h2', { id, class: 'card-title' }, p.name),
      h(StatusBadge, { value: g?.status ?? p.status }),
    ),
    h(Progress, {
      label: t('imports.progressOf', { name: p.name }),
      value: g?.processed_items ?? p.processed_items,
      max: g?.total_items ?? p.total_items,
      text: t('imports.items', {
        done: g?.processed_items ?? p.processed_items,
        total: g?.total_items ?? p.total_items,
        failed: g?.failed_items ?? p.failed_items,
        skipped: g?.skipped_items ?? p.skipped_items,
        bytes: formatBytes(g?.migrated_bytes ?? 0),
      }),
    }),
    g?.current_item ? h('p', { class: 'muted break' }, g.current_item) : null,
    g?.estimated_completion
      ? h('p', { class: 'muted' }, t('imports.eta', { date: when(g.estimated_completion) }))
      : null,
    p.error ? h('p', { class: 'error' }, p.error) : null,
    h(
      'div',
      { class: 'actions' },
      buttons
        .filter(([, , on]) => on)
        .map(([op, label]) =>
          h(
            'button',
            {
              key: op,
              type: 'button',
              class: op === 'deleteMigrationsProject' ? 'danger small' : 'small',
              onClick: () => act(op),
            },
            label,
          ),
        ),
      h(
        'button',
        { type: 'button', class: 'small', 'aria-expanded': open, onClick: () => setOpen(!open) },
        t('imports.agents'),
      ),
    ),
    h(ErrorLine, { error }),
    open ? h(Agents, { id: p.id }) : null,
  );
}

function Agents({ id }: { id: string }) {
  const agents = useLoad(() => client().call('listMigrationsProjectAgents', { path: { id } }), [id]);
  if (!agents.data) return h(Loading, { error: agents.error });
  if ((agents.data.data as unknown as Agent[]).length === 0) return h('p', { class: 'muted' }, t('imports.noAgents'));
  return h(
    'ul',
    { class: 'list' },
    (agents.data.data as unknown as Agent[]).map((a) =>
      h(
        'li',
        { key: a.id },
        h('span', {}, h('strong', {}, a.agent_type.replace(/_/g, ' ')), ' ', h('span', { class: 'muted' }, a.phase)),
        h('span', { class: 'muted' }, t('imports.runs', { ...a.runs })),
      ),
    ),
  );
}
