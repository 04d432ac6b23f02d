import { parseArgs } from 'node:util';
import { clientFor } from '../config.ts';
import { EXIT, type Io, output, table, UsageError } from '../io.ts';

const list = (value: string | undefined) =>
  value
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;

/** holds [list] [--status active|released] | show <id> | place <name> [--documents a,b] [--folders c,d] | release <id> */
export async function holdsCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      status: { type: 'string' },
      documents: { type: 'string' },
      folders: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const [action = 'list', arg] = positionals;
  const json = values.json ?? false;
  const client = await clientFor(io);
  if (action === 'list') {
    const status = values.status === 'active' || values.status === 'released' ? values.status : undefined;
    if (values.status && !status) throw new UsageError('--status is active or released');
    const answer = await client.records.listHolds({ page_size: 100, ...(status ? { status } : {}) });
    output(io, json, answer, () =>
      answer.data.length
        ? table(
            answer.data.map((h) => [
              h.id,
              h.status,
              h.name,
              `${h.document_ids.length} documents, ${h.folder_ids.length} folders`,
              h.created_at,
            ]),
          )
        : 'no legal holds',
    );
    return EXIT.ok;
  }
  if (!arg) throw new UsageError(`holds ${action} needs ${action === 'place' ? 'a name' : 'a hold id'}`);
  if (action === 'place') {
    const documentIds = list(values.documents);
    const folderIds = list(values.folders);
    if (!documentIds && !folderIds) throw new UsageError('holds place needs --documents or --folders');
    const hold = await client.records.placeHold(arg, {
      ...(documentIds ? { documentIds } : {}),
      ...(folderIds ? { folderIds } : {}),
    });
    output(io, json, hold, () => `legal hold ${hold.id} "${hold.name}" placed`);
    return EXIT.ok;
  }
  if (action === 'show') {
    const hold = await client.records.getHold(arg);
    output(io, json, hold, () =>
      [
        `${hold.name} (${hold.status})`,
        `documents: ${hold.document_ids.join(', ') || '-'}`,
        `folders:   ${hold.folder_ids.join(', ') || '-'}`,
        `placed:    ${hold.created_at}`,
        ...(hold.released_at ? [`released:  ${hold.released_at}`] : []),
      ].join('\n'),
    );
    return EXIT.ok;
  }
  if (action === 'release') {
    const hold = await client.records.releaseHold(arg);
    output(io, json, hold, () => `legal hold ${hold.id} released`);
    return EXIT.ok;
  }
  throw new UsageError(`unknown holds action "${action}"`);
}

/** retention [list] | show <id> | add <folder-id> --keep-days N [--basis created|last_version] [--action delete|review] | run <id> | remove <id> */
export async function retentionCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      'keep-days': { type: 'string' },
      basis: { type: 'string', default: 'created' },
      action: { type: 'string', default: 'review' },
      json: { type: 'boolean' },
    },
  });
  const [action = 'list', arg] = positionals;
  const json = values.json ?? false;
  const client = await clientFor(io);
  if (action === 'list') {
    const answer = await client.records.listRules({ page_size: 100 });
    output(io, json, answer, () =>
      answer.data.length
        ? table(
            answer.data.map((r) => [
              r.id,
              r.folder_id,
              `${r.keep_days} days from ${r.basis}`,
              r.action,
              `last run: ${r.last_run.status}`,
            ]),
          )
        : 'no retention rules',
    );
    return EXIT.ok;
  }
  if (!arg) throw new UsageError(`retention ${action} needs ${action === 'add' ? 'a folder id' : 'a rule id'}`);
  if (action === 'add') {
    const keepDays = Number(values['keep-days']);
    if (!Number.isInteger(keepDays) || keepDays < 1)
      throw new UsageError('retention add needs --keep-days, a whole number of days');
    if (values.basis !== 'created' && values.basis !== 'last_version')
      throw new UsageError('--basis is created or last_version');
    if (values.action !== 'delete' && values.action !== 'review') throw new UsageError('--action is delete or review');
    const rule = await client.records.createRule({
      folder_id: arg,
      keep_days: keepDays,
      basis: values.basis,
      action: values.action,
    });
    output(io, json, rule, () => `retention rule ${rule.id} created`);
    return EXIT.ok;
  }
  if (action === 'show') {
    const rule = await client.records.getRule(arg);
    const run = rule.last_run;
    output(io, json, rule, () =>
      [
        `folder ${rule.folder_id}: ${rule.action} after ${rule.keep_days} days from ${rule.basis}`,
        `last run: ${run.status}${run.started_at ? ` (started ${run.started_at})` : ''}`,
        `  examined ${run.examined}, deleted ${run.deleted}, review requested ${run.review_requested}, held ${run.held}${run.error ? `, error: ${run.error}` : ''}`,
      ].join('\n'),
    );
    return EXIT.ok;
  }
  if (action === 'run') {
    const rule = await client.records.runRule(arg);
    output(io, json, rule, () => `run of retention rule ${rule.id} queued`);
    return EXIT.ok;
  }
  if (action === 'remove') {
    const answer = await client.records.deleteRule(arg);
    output(io, json, answer, () => `retention rule ${arg} deleted`);
    return EXIT.ok;
  }
  throw new UsageError(`unknown retention action "${action}"`);
}
