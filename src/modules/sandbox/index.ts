import { defineModule } from '../../platform/module.ts';
import { sandboxResetJob } from './sandbox-reset.ts';

/** The sandbox's 7-day reset: every module's clean-up, run for each twin whose week is up. */
export const sandboxModule = defineModule({
  name: 'sandbox',
  setup({ database, clock, sandboxCleanups }) {
    return { recurring: [sandboxResetJob({ database, clock, cleanups: sandboxCleanups })] };
  },
});
