import { parseArgs } from 'node:util';
import { clientFor } from '../config.ts';
import { EXIT, type Io, output, table, UsageError } from '../io.ts';

/** audit [--document ID] [--actor ID] [--action NAME] [--from ISO] [--to ISO] [--export ndjson|csv] */
export async function auditCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      document: { type: 'string' },
      actor: { type: 'string' },
      action: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      page: { type: 'string' },
      export: { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new UsageError(`audit takes options only, not "${positionals[0]}"`);
  const query = {
    ...(values.document ? { document_id: values.document } : {}),
    ...(values.actor ? { actor: values.actor } : {}),
    ...(values.action ? { action: values.action } : {}),
    ...(values.from ? { from: values.from } : {}),
    ...(values.to ? { to: values.to } : {}),
  };
  const client = await clientFor(io);
  if (values.export !== undefined) {
    if (values.export !== 'ndjson' && values.export !== 'csv') throw new UsageError('--export takes ndjson or csv');
    const res = await client.audit.exportRaw({ ...query, format: values.export });
    if (res.body)
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) io.stdout.write(Buffer.from(chunk));
    return EXIT.ok;
  }
  const page = await client.audit.list({ ...query, page: values.page ? Number(values.page) : 1, page_size: 50 });
  output(io, values.json ?? false, page, () =>
    page.data.length
      ? table(
          page.data.map((r) => [
            r.at,
            r.actor_type,
            r.actor_id ?? '-',
            r.action,
            r.target_id ?? '-',
            r.outcome,
            r.ip ?? '-',
          ]),
        )
      : 'no audit records',
  );
  return EXIT.ok;
}
