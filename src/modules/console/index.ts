import { defineModule } from '../../platform/module.ts';
import { consoleRoutes } from './console.routes.ts';
import { nextConsoleRoutes } from './next.routes.ts';

/** The web console: the classic one at /console/ and the rebuilt one at /console/next/, both on the public API only. */
export const consoleModule = defineModule({
  name: 'console',
  setup() {
    return {
      rootRoutes: (app) => {
        consoleRoutes(app);
        nextConsoleRoutes(app);
      },
    };
  },
});
