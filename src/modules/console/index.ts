import { defineModule } from '../../platform/module.ts';
import { consoleRoutes } from './console.routes.ts';

/** The web console at /console/ (`/` redirects there), on the public API only. */
export const consoleModule = defineModule({
  name: 'console',
  setup() {
    return {
      rootRoutes: (app) => {
        consoleRoutes(app);
      },
    };
  },
});
