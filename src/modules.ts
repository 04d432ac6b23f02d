import { auditModule } from './modules/audit/index.ts';
import { chatModule } from './modules/chat/index.ts';
import { consoleModule } from './modules/console/index.ts';
import { creditsModule } from './modules/credits/index.ts';
import { documentsModule } from './modules/documents/index.ts';
import { healthModule } from './modules/health/index.ts';
import { identityModule } from './modules/identity/index.ts';
import { importsModule } from './modules/imports/index.ts';
import { mailModule } from './modules/mail/index.ts';
import { mcpModule } from './modules/mcp/index.ts';
import { processingModule } from './modules/processing/index.ts';
import { recordsModule } from './modules/records/index.ts';
import { reviewModule } from './modules/review/index.ts';
import { sandboxModule } from './modules/sandbox/index.ts';
import { searchModule } from './modules/search/index.ts';
import { storageModule } from './modules/storage/index.ts';
import { subscriptionModule } from './modules/subscription/index.ts';
import { transferModule } from './modules/transfer/index.ts';
import { viewsModule } from './modules/views/index.ts';
import { webhooksModule } from './modules/webhooks/index.ts';
import { workflowsModule } from './modules/workflows/index.ts';
import type { ModuleDefinition } from './platform/module.ts';

/**
 * Every module of the service, in dependency order (a module may `use` those above it). The API
 * and the worker both read this list; a new module is one line here plus its folder.
 */
export const MODULES: readonly ModuleDefinition[] = [
  healthModule,
  mailModule,
  identityModule,
  auditModule,
  documentsModule,
  creditsModule,
  processingModule,
  searchModule,
  chatModule,
  mcpModule,
  sandboxModule,
  webhooksModule,
  workflowsModule,
  reviewModule,
  recordsModule,
  subscriptionModule,
  importsModule,
  consoleModule,
  storageModule,
  transferModule,
  viewsModule,
];
