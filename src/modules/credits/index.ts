import { defineModule } from '../../platform/module.ts';
import { CreditsRepository } from './credits.repository.ts';
import { CreditsService } from './credits.service.ts';

export { type CreditBalance, type CreditReason, CREDIT_COSTS, type CreditsService } from './credits.service.ts';

declare module '../../platform/module.ts' {
  interface ModuleServices {
    /** The AI credit ledger: `charge(trx, tenant, reason)` inside the priced operation's transaction. */
    credits: CreditsService;
  }
}

/** AI credits: a ledger per tenant and billing month, charged by search, chat and other priced operations. */
export const creditsModule = defineModule({
  name: 'credits',
  setup({ database, clock }) {
    const credits = new CreditsService({ database, clock, credits: new CreditsRepository() });
    return {
      provides: { credits },
      async sandboxCleanup(trx, tenantId) {
        await trx.deleteFrom('ai_credit_charges').where('tenant_id', '=', tenantId).execute();
      },
    };
  },
});
