import { defineModule } from '../../platform/module.ts';
import { SavedViewsRepository } from './saved-views.repository.ts';
import { SavedViewsService } from './saved-views.service.ts';
import { viewsRoutes } from './views.routes.ts';

/**
 * Saved views (issue 33, docs/console.md "Saved views"): the console's documents page kept under
 * a name, per person and tenant. Listed after documents (a view's folder must be one the person sees).
 */
export const viewsModule = defineModule({
  name: 'views',
  setup({ database, clock, use }) {
    const repository = new SavedViewsRepository();
    const views = new SavedViewsService({ database, clock, repository, folders: use('folders') });
    return {
      routes(app) {
        viewsRoutes(app, views);
      },
      async sandboxCleanup(trx, tenantId) {
        await repository.deleteForTenant(trx, tenantId);
      },
    };
  },
});
