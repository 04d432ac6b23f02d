import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const BIN = new URL('../../packages/cli/bin/docuvault.ts', import.meta.url).pathname;

/** What a CLI run printed and how it ended. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Starts `docuvault <args>` as a real process, as a shell user would, with its own config file. */
export function startCli(
  args: string[],
  env: Record<string, string>,
  stdin?: string,
): { child: ChildProcess; done: Promise<CliResult> } {
  // The compile cache (set by `npm test`) only saves start-up time: each of the suite's many CLI runs compiles the same modules.
  const cache = process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {};
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: env.HOME ?? tmpdir(), ...cache, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  child.stdin?.end(stdin ?? '');
  const done = new Promise<CliResult>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { child, done };
}

/** Runs `docuvault <args>` to its end. */
export function cli(args: string[], env: Record<string, string>, stdin?: string): Promise<CliResult> {
  return startCli(args, env, stdin).done;
}

/** A fresh folder holding a config location for the CLI. */
export async function cliHome(): Promise<{ dir: string; env: Record<string, string> }> {
  const dir = await mkdtemp(join(tmpdir(), 'cli-test-'));
  return { dir, env: { HOME: dir, DOCUVAULT_CONFIG: join(dir, 'config', 'config.json') } };
}

/** Writes files (relative path -> content) under `root`. */
export async function writeTree(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const path = join(root, rel);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  }
}
