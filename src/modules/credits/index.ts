import { defineModule } from '../../platform/module.ts';
import { CreditsRepository } from './credits.repository.ts';
import { CreditsService, type UsageNotifier } from './credits.service.ts';

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
  setup({ database, clock, use }) {
    const mail = use('mail');
    const members = use('members');
    // Each threshold of the month's credits, once per month (the charges are serialised per tenant), to the owners and admins.
    const notify: UsageNotifier = async (trx, tenant, crossed) => {
      for (const admin of await members.administrators(trx, tenant.id)) {
        await mail.enqueue(trx, {
          tenantId: tenant.id,
          kind: 'usage_threshold',
          to: admin.email,
          user: admin,
          data: crossed,
          at: clock.now(),
        });
      }
    };
    const credits = new CreditsService({ database, clock, credits: new CreditsRepository(), notify });
    return {
      provides: { credits },
      async sandboxCleanup(trx, tenantId) {
        await trx.deleteFrom('ai_credit_charges').where('tenant_id', '=', tenantId).execute();
      },
    };
  },
});
