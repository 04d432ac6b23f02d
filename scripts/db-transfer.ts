/**
 * `npm run db:transfer -- --to <postgres url | DATA_DIR folder> [--batch-size N]`
 *
 * Copies the database of the current configuration (DATABASE_URL, else DATA_DIR/service.db) into
 * a new, empty database, verifies it and prints a row count and checksum per table
 * (docs/deploy.md, "From one machine to many"). Run it again after an interruption: it resumes.
 * Exit codes: 0 done, 2 refused (no row copied; or a verification mismatch), 1 failed.
 */
import { parseArgs } from 'node:util';
import { TransferRefused } from '../src/db/transfer/transfer.ts';
import { redactSecrets } from '../src/lib/log-redaction.ts';
import { formatReport, type Location, transferInstance } from '../src/modules/transfer/instance-transfer.ts';

const { values } = parseArgs({ options: { to: { type: 'string' }, 'batch-size': { type: 'string' } } });
if (!values.to) {
  process.stderr.write('usage: npm run db:transfer -- --to <postgres://... | DATA_DIR folder> [--batch-size 2000]\n');
  process.exit(2);
}
const location = (value: string): Location => (/^postgres(ql)?:\/\//.test(value) ? { url: value } : { dataDir: value });
const from: Location = process.env['DATABASE_URL']
  ? { url: process.env['DATABASE_URL'] }
  : { dataDir: process.env['DATA_DIR'] || './data' };
const batchSize = values['batch-size'] ? Number(values['batch-size']) : undefined;
if (batchSize !== undefined && !(Number.isInteger(batchSize) && batchSize > 0)) {
  process.stderr.write('--batch-size must be a positive integer\n');
  process.exit(2);
}

const started = Date.now();
try {
  const reports = await transferInstance({
    from,
    to: location(values.to),
    ...(batchSize ? { batchSize } : {}),
    progress: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(`${formatReport(reports)}\n`);
  const rows = reports.reduce((a, r) => a + (r.checksum === 'rebuilt' ? 0 : r.rows), 0);
  process.stderr.write(
    `transfer complete and verified: ${rows} rows in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
} catch (error) {
  if (error instanceof TransferRefused) {
    process.stderr.write(`db:transfer refused: ${redactSecrets(error.message)}\n`);
    process.exit(2);
  }
  process.stderr.write(
    `db:transfer failed: ${redactSecrets(error instanceof Error ? (error.stack ?? error.message) : String(error))}\n`,
  );
  process.exit(1);
}
