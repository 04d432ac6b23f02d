import { parseArgs } from 'node:util';
import { clientFor } from '../config.ts';
import { terminalHighlight } from '../highlight.ts';
import { EXIT, type Io, output, UsageError } from '../io.ts';

const MODES = ['auto', 'text', 'keyword', 'semantic', 'hybrid'] as const;

/** search <query>: ranked hits with their highlights. */
async function search(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      mode: { type: 'string', default: 'auto' },
      limit: { type: 'string', default: '20' },
      json: { type: 'boolean' },
    },
  });
  const query = positionals.join(' ');
  if (!query) throw new UsageError('search needs a query');
  const mode = values.mode as (typeof MODES)[number];
  if (!MODES.includes(mode)) throw new UsageError(`--mode must be one of ${MODES.join(', ')}`);
  const client = await clientFor(io);
  const limit = Number(values.limit);
  const answer =
    mode === 'hybrid'
      ? await client.call('postSearchHybrid', { body: { query, limit } })
      : await client.call('search', { query: { q: query, mode, limit } });
  output(io, values.json ?? false, answer, () =>
    answer.results.length === 0
      ? `no results (${answer.mode})`
      : answer.results
          .map(
            (r) =>
              `${r.score.toFixed(2)}  ${r.document.filename}  [${r.document.id}]\n      ${terminalHighlight(r.highlight, io.stdout.isTTY === true && !io.env.NO_COLOR)}`,
          )
          .join('\n'),
  );
  return EXIT.ok;
}

/** ask <document-id> <question>: a new chat session on the document, the answer streamed to stdout. */
async function ask(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
  const [documentId, ...words] = positionals;
  if (!documentId || words.length === 0) throw new UsageError('ask needs a document id and a question');
  const client = await clientFor(io);
  const question = words.join(' ');
  const session = await client.chat.createSession(documentId, question.slice(0, 100));
  for await (const event of client.chat.stream(session.id, question)) {
    if (event.type === 'delta' && !values.json) io.stdout.write(event.content);
    if (event.type !== 'done') continue;
    output(io, values.json ?? false, event.message, () =>
      [
        '',
        ...event.message.citations.map(
          (c, i) => `[${i + 1}]${c.page ? ` p.${c.page}` : ''} ${c.text.replace(/\s+/g, ' ').slice(0, 160)}`,
        ),
      ].join('\n'),
    );
  }
  return EXIT.ok;
}

export const searchCommands = { search, ask };
