import { parseArgs } from 'node:util';
import { clientFor } from '../config.ts';
import { bytes, EXIT, type Io, output, table, UsageError } from '../io.ts';

const USAGE =
  'versions [list] <document-id> | upload <document-id> <path> [--filename NAME] | download <document-id> <n> [-o FILE] | restore <document-id> <n>';

function versionNumber(value: string | undefined): number {
  const n = Number(value);
  if (!value || !Number.isSafeInteger(n) || n < 1)
    throw new UsageError(`a version number is 1, 2, 3...; got "${value ?? ''}"`);
  return n;
}

/** versions: list a document's versions, upload a new one, download or restore one (docs/versions.md). */
export async function versionsCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean' }, output: { type: 'string', short: 'o' }, filename: { type: 'string' } },
  });
  const verbs = ['list', 'upload', 'download', 'restore'];
  const [verb, ...rest] = verbs.includes(positionals[0] ?? '') ? positionals : ['list', ...positionals];
  const id = rest[0];
  if (!id) throw new UsageError(`usage: ${USAGE}`);
  const json = values.json ?? false;
  const client = await clientFor(io);
  switch (verb) {
    case 'list': {
      const list = await client.documents.versions(id);
      output(io, json, list, () =>
        table(
          list.versions.map((v) => [
            `${v.current ? '*' : ' '} v${v.number}`,
            v.filename,
            bytes(v.file_size),
            v.created_at,
            v.created_by ?? 'API key',
            v.sha256.slice(0, 12),
          ]),
        ),
      );
      return EXIT.ok;
    }
    case 'upload': {
      const path = rest[1];
      if (!path) throw new UsageError('versions upload needs a document id and a file path');
      const made = await client.documents.uploadVersion(id, path, values.filename ? { filename: values.filename } : {});
      output(io, json, made, () =>
        made.created
          ? `version ${made.number} of ${id} is current (${bytes(made.file_size)}); processing again`
          : `identical to the current version ${made.number}: nothing added`,
      );
      return EXIT.ok;
    }
    case 'download': {
      const number = versionNumber(rest[1]);
      if (values.output === '-') {
        const res = await client.documents.downloadVersion(id, number);
        for await (const chunk of res.body ?? []) io.stdout.write(chunk);
        return EXIT.ok;
      }
      const target =
        values.output ??
        (await client.documents.versions(id)).versions.find((v) => v.number === number)?.filename ??
        `${id}-v${number}`;
      const written = await client.documents.downloadVersionTo(id, number, target);
      output(
        io,
        json,
        { id, version: number, path: target, bytes: written },
        () => `saved version ${number} as ${target} (${bytes(written)})`,
      );
      return EXIT.ok;
    }
    default: {
      const number = versionNumber(rest[1]);
      const done = await client.documents.restoreVersion(id, number);
      output(io, json, done, () =>
        done.restored
          ? `version ${number} of ${id} is current again; processing again`
          : `version ${number} already is current`,
      );
      return EXIT.ok;
    }
  }
}
