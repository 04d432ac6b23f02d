import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { DocuVault, type RetryNotice, type UserTokens } from '@docuvault/sdk';
import { type Io, UsageError } from './io.ts';

/** What `docuvault login` saves: where the service is and the credential. */
export interface SavedConfig {
  baseUrl: string;
  apiKey?: string;
  tokens?: UserTokens;
  sandbox?: boolean;
}

/** The config file: $DOCUVAULT_CONFIG, else $XDG_CONFIG_HOME/docuvault/config.json, else ~/.config/docuvault/config.json. */
export function configPath(env: NodeJS.ProcessEnv): string {
  if (env.DOCUVAULT_CONFIG) return env.DOCUVAULT_CONFIG;
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'docuvault', 'config.json');
}

export async function readConfig(env: NodeJS.ProcessEnv): Promise<SavedConfig | null> {
  try {
    return JSON.parse(await readFile(configPath(env), 'utf8')) as SavedConfig;
  } catch {
    return null;
  }
}

/** Saved readable by the user only: it holds a credential. */
export async function writeConfig(env: NodeJS.ProcessEnv, config: SavedConfig): Promise<void> {
  const path = configPath(env);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
}

export async function removeConfig(env: NodeJS.ProcessEnv): Promise<void> {
  await rm(configPath(env), { force: true });
}

/**
 * The client for a command: DOCUVAULT_URL and DOCUVAULT_API_KEY override the saved login (CI
 * jobs need no config file); refreshed user tokens are saved back so the next run starts signed in.
 */
export async function clientFor(io: Io): Promise<DocuVault> {
  const saved = await readConfig(io.env);
  const baseUrl = io.env.DOCUVAULT_URL || saved?.baseUrl;
  const apiKey = apiKeyOf(io.env, saved);
  if (!baseUrl || (!apiKey && !saved?.tokens))
    throw new UsageError('not logged in: run `docuvault login` (or set DOCUVAULT_URL and DOCUVAULT_API_KEY)');
  const sandbox = saved?.sandbox ?? false;
  // A re-run after a kill may meet its own earlier upload still finishing on the service (same
  // Idempotency-Key): it waits for that answer rather than failing the file.
  const retry = { onRetry: rateLimitNotice(io), inProgressWaitMs: 60_000 };
  if (apiKey) return new DocuVault({ baseUrl, apiKey, sandbox, retry });
  return new DocuVault({
    baseUrl,
    sandbox,
    retry,
    ...(saved?.tokens ? { tokens: saved.tokens } : {}),
    onTokens: (tokens) => writeConfig(io.env, { baseUrl, tokens, sandbox }),
  });
}

/** The API key a command uses: DOCUVAULT_API_KEY, else the saved one; undefined for a user login. */
export function apiKeyOf(env: NodeJS.ProcessEnv, saved: SavedConfig | null): string | undefined {
  return env.DOCUVAULT_API_KEY || saved?.apiKey;
}

// The SDK waits out a 429 by itself; without a word the command would just look hung for that long.
function rateLimitNotice(io: Io): (retry: RetryNotice) => void {
  return ({ status, waitMs }) => {
    if (status !== 429) return;
    io.stderr.write(`docuvault: rate limited by the service; waiting ${Math.ceil(waitMs / 1000)} s before retrying\n`);
  };
}
