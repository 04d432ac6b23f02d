import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run bench [filter]`: runs every `bench/**\/*.bench.ts` (or those whose path contains the
 * filter), each exporting `run()`, and prints one JSON result per benchmark. Numbers are recorded
 * by hand in docs/benchmarks.md with the date and machine.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2] ?? '';

function findBenches(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : findBenches(full);
    return entry.name.endsWith('.bench.ts') ? [full] : [];
  });
}

const results: unknown[] = [];
for (const file of findBenches(here).sort()) {
  const rel = path.relative(here, file);
  if (!rel.includes(filter)) continue;
  process.stderr.write(`running ${rel}...\n`);
  const mod = (await import(file)) as { run?: () => Promise<unknown> };
  if (typeof mod.run !== 'function') continue;
  const result = await mod.run();
  results.push({ bench: rel, result });
  console.log(JSON.stringify({ bench: rel, result }, null, 2));
}
process.exit(results.length > 0 ? 0 : 1);
