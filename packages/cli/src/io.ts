/** Where a command writes, and the environment it reads (passed in, so tests run commands in-process too). */
export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  env: NodeJS.ProcessEnv;
}

/** Exit codes: what a shell user expects. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** A mistake in the command line: printed with the usage hint, exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Prints `value` as JSON (scripts) or through `human` (people). */
export function output(io: Io, json: boolean, value: unknown, human: () => string): void {
  io.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}

/** Left-aligned columns, for lists. */
export function table(rows: string[][]): string {
  const widths = rows.reduce<number[]>((w, row) => row.map((cell, i) => Math.max(w[i] ?? 0, cell.length)), []);
  return rows
    .map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  '))
    .join('\n');
}

/** 1536 -> "1.5 KB"; 714.28 -> "714 B". */
export function bytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  // Whole bytes, one decimal above: a rate of 714.2857 B/s reads as "714 B".
  return `${unit === 0 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}
