import { defineModule } from '../../platform/module.ts';
import { healthRoutes } from './health.routes.ts';

/** Liveness and readiness probes and Prometheus metrics, outside `/api/v1`. */
export const healthModule = defineModule({
  name: 'health',
  setup({ database, blobs, metrics, capabilities }) {
    return { rootRoutes: (app) => healthRoutes(app, { database, blobs, metrics, capabilities }) };
  },
});
