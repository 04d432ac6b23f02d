import { IdempotencyRepository } from '../../http/idempotency.repository.ts';
import { defineModule } from '../../platform/module.ts';
import { sandboxResetJob } from './sandbox-reset.ts';

/** The sandbox's 7-day reset: every module's clean-up, run for each twin whose week is up. */
export const sandboxModule = defineModule({
  name: 'sandbox',
  setup({ database, clock, events, use, sandboxCleanups }) {
    const deps = {
      database,
      clock,
      events,
      tenants: use('tenants'),
      idempotency: new IdempotencyRepository(),
      cleanups: sandboxCleanups,
    };
    return { recurring: [sandboxResetJob(deps)] };
  },
});
