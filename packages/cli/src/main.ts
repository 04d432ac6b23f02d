import { DocuVaultError } from '@docuvault/sdk';
import { auditCommand } from './commands/audit.ts';
import { browseCommands } from './commands/browse.ts';
import { loginCommands } from './commands/login.ts';
import { holdsCommand, retentionCommand } from './commands/records.ts';
import { searchCommands } from './commands/search.ts';
import { tasksCommand } from './commands/tasks.ts';
import { uploadCommand } from './commands/upload.ts';
import { versionsCommand } from './commands/versions.ts';
import { webhooksCommand } from './commands/webhooks.ts';
import { EXIT, type Io, UsageError } from './io.ts';

/** A subcommand: its arguments (after the name) and the streams; answers the exit code. */
export type Command = (args: string[], io: Io) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  ...loginCommands,
  ...browseCommands,
  ...searchCommands,
  upload: uploadCommand,
  tasks: tasksCommand,
  versions: versionsCommand,
  webhooks: webhooksCommand,
  audit: auditCommand,
  holds: holdsCommand,
  retention: retentionCommand,
};

const USAGE = `usage: docuvault <command> [options]   (add --json to any command for machine-readable output)

  login --url URL (--api-key KEY | --tenant SUB --email EMAIL [--password-stdin]) [--sandbox]
  logout | whoami
  upload <paths...> [--to /Folder/Path] [--concurrency N] [--no-ai] [--tags a,b] [--no-progress]
  ls [/Folder/Path | folder-id]    get <document-id>    download <document-id> [-o FILE]
  versions <document-id>           versions upload <document-id> <path> [--filename NAME]
  versions download <document-id> <n> [-o FILE]    versions restore <document-id> <n>
  search <query> [--mode auto|text|keyword|semantic|hybrid] [--limit N]
  ask <document-id> <question>     (streams the answer, then its citations)
  tasks [list | approve <id> | reject <id>] [--comment TEXT]
  webhooks [list | deliveries <id> | redeliver <id> <delivery-id> | test <id>]
  audit [--document ID] [--actor ID] [--action NAME] [--from ISO] [--to ISO] [--page N] [--export ndjson|csv]
  holds [list [--status active|released] | show <id> | place <name> --documents a,b --folders c,d | release <id>]
  retention [list | show <id> | add <folder-id> --keep-days N [--basis created|last_version] [--action delete|review] | run <id> | remove <id>]

environment: DOCUVAULT_URL, DOCUVAULT_API_KEY override the saved login; DOCUVAULT_CONFIG names the config file`;

/** Runs one command line; never throws: errors become a message on stderr and an exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    io.stdout.write(`${USAGE}\n`);
    return name ? EXIT.ok : EXIT.usage;
  }
  const command = COMMANDS[name];
  if (!command) return fail(io, new UsageError(`unknown command "${name}"`));
  try {
    return await command(args, io);
  } catch (error) {
    return fail(io, error);
  }
}

function fail(io: Io, error: unknown): number {
  if (
    error instanceof UsageError ||
    (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))
  ) {
    io.stderr.write(`docuvault: ${error.message}\nrun \`docuvault help\` for usage\n`);
    return EXIT.usage;
  }
  if (error instanceof DocuVaultError) {
    io.stderr.write(
      `docuvault: ${error.message} (${error.code}, HTTP ${error.status}${error.requestId ? `, request ${error.requestId}` : ''})\n`,
    );
    return EXIT.failure;
  }
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  io.stderr.write(`docuvault: ${error instanceof Error ? error.message : String(error)}${cause}\n`);
  return EXIT.failure;
}
