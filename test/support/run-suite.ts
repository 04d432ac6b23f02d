/**
 * `npm test`: runs the test files like `node --test` does (same global setup, timeout and
 * reporters), but hands them out slowest first.
 *
 * Why: `node --test` sorts its files by path, so the slowest ones (test/modules/workflows/, near the end
 * of the alphabet) started last and the run ended with one of them running alone while the other
 * slot sat idle. Started first, they overlap the many short files instead (the longest-first rule
 * of scheduling jobs on parallel machines). The order comes from the file durations of earlier runs
 * (each run's in `node_modules/.cache/test-durations.txt`, written by file-durations-reporter.ts,
 * merged into `test-seconds.json` beside it); before any run on this checkout (a fresh clone, CI), from
 * `test/support/test-seconds.json`: the seconds of a whole quiet run, committed and refreshed by hand
 * (copy `node_modules/.cache/test-seconds.json` after a full run: it is written as biome formats
 * JSON), else from the short list below.
 *
 *   node test/support/run-suite.ts [file, folder or glob …]      (default: test/**\/*.test.ts)
 *
 * Three files run side by side (TEST_CONCURRENCY overrides it): on the 2-core machine many files
 * spend much of their time waiting on child processes, timers and leases, so a third keeps the
 * cores busy (562 s at two, 497 s at three, before the longest-first order; README "Tests").
 */
import fs from 'node:fs';
import path from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import fileDurations from './file-durations-reporter.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DURATIONS = path.join(ROOT, 'node_modules/.cache/test-durations.txt');
/** Seconds per file over the runs so far: a run of some files (a folder, one file) updates only theirs. */
const KNOWN = path.join(ROOT, 'node_modules/.cache/test-seconds.json');
/** Each test process's CPU, written at its exit (file-cpu-preload.ts), read by the durations reporter. */
const CPU_LOG = path.join(ROOT, 'node_modules/.cache/test-cpu.jsonl');
/** The same, committed: a fresh clone orders its first run by it. */
const COMMITTED = path.join(ROOT, 'test/support/test-seconds.json');

/** Wall seconds of the slowest files in a quiet run (README "Tests"), for a first run without durations. */
const SEED: Record<string, number> = {
  'test/modules/workflows/durability.test.ts': 67,
  'test/modules/workflows/triggers.test.ts': 47,
  'test/modules/console/browser.test.ts': 43,
  'test/cli/cli.test.ts': 32,
  'test/modules/webhooks/webhooks-delivery.test.ts': 30,
  'test/modules/storage/storage-crash.test.ts': 22,
};
/** What an unknown file (new since the last run) is taken to last: ahead of the many short ones. */
const UNKNOWN_SECONDS = 10;

/** Seconds per file (path relative to the root) from a run's durations file. */
export function lastDurations(text: string): Map<string, number> {
  const seconds = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^\s*([\d.]+) s\s+\d+ tests.*?\s(\S+\.test\.ts)$/.exec(line);
    if (match) seconds.set(match[2]!, Number(match[1]));
  }
  return seconds;
}

/** Seconds per file known from earlier runs, else the seed. */
export function knownSeconds(json: string | null): Map<string, number> {
  return new Map(Object.entries(json === null ? SEED : (JSON.parse(json) as Record<string, number>)));
}

/** The files, slowest first; a file the durations do not know counts as UNKNOWN_SECONDS. */
export function slowestFirst(files: readonly string[], seconds: ReadonlyMap<string, number>): string[] {
  const known = (file: string) => seconds.get(file) ?? UNKNOWN_SECONDS;
  return [...files].sort((a, b) => known(b) - known(a) || a.localeCompare(b));
}

function main(): void {
  // A folder stands for the test files under it (`npm test -- test/modules/workflows`).
  const patterns = process.argv
    .slice(2)
    .map((arg) =>
      fs.statSync(path.resolve(ROOT, arg), { throwIfNoEntry: false })?.isDirectory() ? `${arg}/**/*.test.ts` : arg,
    );
  const files = fs
    .globSync(patterns.length > 0 ? patterns : ['test/**/*.test.ts'], { cwd: ROOT })
    .filter((file) => file.endsWith('.test.ts'));
  const read = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null);
  // This checkout's own runs override the committed figures, file by file.
  const known = new Map([...knownSeconds(read(COMMITTED)), ...knownSeconds(read(KNOWN) ?? '{}')]);
  const ordered = slowestFirst(files, known);
  fs.mkdirSync(path.dirname(DURATIONS), { recursive: true });
  fs.writeFileSync(CPU_LOG, '');
  process.env.TEST_CPU_LOG = CPU_LOG;
  // `globalSetupPath` is run()'s `--test-global-setup` (Node 24); @types/node does not list it yet.
  const options = {
    files: ordered.map((file) => path.join(ROOT, file)),
    concurrency: Number(process.env.TEST_CONCURRENCY ?? 3),
    timeout: 180_000,
    globalSetupPath: path.join(ROOT, 'test/support/global-setup.ts'),
    execArgv: ['--import', path.join(ROOT, 'test/support/file-cpu-preload.ts')],
  };
  const stream = run(options);
  stream.on('test:fail', () => {
    process.exitCode = 1;
  });
  stream.compose(new spec()).pipe(process.stdout);
  const out = fs.createWriteStream(DURATIONS);
  out.on('close', () => {
    const text = fs.readFileSync(DURATIONS, 'utf8');
    // The run's totals (wall, CPU, cores busy) where the person who ran it sees them; per file in the file.
    const totals = text.split('\n').filter((line) => line && !line.endsWith('.test.ts'));
    process.stderr.write(`${totals.join('\n')}\nper file: ${path.relative(process.cwd(), DURATIONS)}\n`);
    const seconds = new Map([...known, ...lastDurations(text)]);
    fs.writeFileSync(KNOWN, `${JSON.stringify(Object.fromEntries(seconds), null, 2)}\n`);
  });
  stream.compose(fileDurations).pipe(out);
}

if (import.meta.main) main();
