import { defineModule } from '../../platform/module.ts';
import { keepInstanceLease } from './instance-lease.ts';

/**
 * Moving data between deployments (issue 35). The service side is small: each process keeps a
 * lease row so that `npm run db:transfer` (scripts/db-transfer.ts, ./instance/) can refuse a
 * database that is still being written.
 */
export const transferModule = defineModule({
  name: 'transfer',
  setup({ database, clock, logger }) {
    const role = process.argv[2] === 'worker' ? 'worker' : 'serve';
    const lease = keepInstanceLease(database.db, clock, logger, role);
    return { close: () => lease.stop() };
  },
});
