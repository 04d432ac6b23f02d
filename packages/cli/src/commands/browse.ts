import { parseArgs } from 'node:util';
import type { DocumentSummary } from '@docuvault/sdk';
import { clientFor } from '../config.ts';
import { FolderPaths } from '../folders.ts';
import { bytes, EXIT, type Io, output, table, UsageError } from '../io.ts';

/** ls [folder]: the folder's subfolders and documents (all pages). */
async function ls(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
  const client = await clientFor(io);
  const target = positionals[0] ?? '/';
  const folderId = (await FolderPaths.load(client)).resolve(target);
  if (folderId === undefined) throw new UsageError(`no folder ${target}`);
  const { folders } = await client.call('listFolders', { query: { parent_id: folderId ?? 'root' } });
  const documents: DocumentSummary[] = [];
  for await (const doc of client.paginate('listDocuments', {
    query: { folder_id: folderId ?? 'root', page_size: 100, sort: 'name', order: 'asc' },
  }))
    documents.push(doc);
  output(io, values.json ?? false, { folders, documents }, () =>
    table([
      ...folders.map((f) => [`${f.name}/`, '', `${f.document_count ?? ''} docs`, f.id]),
      ...documents.map((d) => [d.filename, bytes(d.file_size), `${d.status}/${d.ai_status}`, d.id]),
    ]),
  );
  return EXIT.ok;
}

/** get <id>: a document's details. */
async function get(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
  if (!positionals[0]) throw new UsageError('get needs a document id');
  const doc = await (await clientFor(io)).call('getDocument', { path: { id: positionals[0] } });
  output(io, values.json ?? false, doc, () =>
    [
      `${doc.filename}  (${bytes(doc.file_size)}, ${doc.file_type})`,
      `status: ${doc.status}, AI: ${doc.ai_status}`,
      `tags: ${doc.tags.join(', ') || '-'}   AI tags: ${doc.ai_tags.join(', ') || '-'}`,
      doc.ai_summary ? `summary: ${doc.ai_summary}` : '',
      `created ${doc.created_at}, id ${doc.id}`,
    ]
      .filter(Boolean)
      .join('\n'),
  );
  return EXIT.ok;
}

/** download <id> [-o file]: the original bytes, to a file (default: its own name) or `-o -` for stdout. */
async function download(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { output: { type: 'string', short: 'o' }, json: { type: 'boolean' } },
  });
  const id = positionals[0];
  if (!id) throw new UsageError('download needs a document id');
  const client = await clientFor(io);
  if (values.output === '-') {
    const res = await client.documents.download(id);
    for await (const chunk of res.body ?? []) io.stdout.write(chunk);
    return EXIT.ok;
  }
  const target = values.output ?? (await client.call('getDocument', { path: { id } })).filename;
  const written = await client.documents.downloadTo(id, target);
  output(io, values.json ?? false, { id, path: target, bytes: written }, () => `saved ${target} (${bytes(written)})`);
  return EXIT.ok;
}

export const browseCommands = { ls, get, download };
