import type http from 'node:http';
import { buildApp } from './app.ts';
import { type Config, ConfigError, loadConfig } from './config/config.ts';
import { createContainer } from './container.ts';
import { DatabaseConnectionError } from './db/connection-errors.ts';
import { migrateToLatest } from './db/migrator.ts';
import { serveMetrics } from './http/metrics.ts';
import { redactSecrets } from './lib/log-redaction.ts';
import { createLogger } from './lib/logger.ts';
import { nodeHttp } from './lib/node-http.ts';

/** Entry point: `serve` (API + worker), `worker` (workers only), `migrate`. */
async function main(command: string): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger({ level: config.logLevel });
  const container = await createContainer(config, { logger });
  await migrateToLatest(container.database.db);
  if (command === 'migrate') {
    logger.info('migrations are up to date');
    await container.close();
    return;
  }

  // Signals are taken from here on: one that arrives while the process is still starting (an
  // orchestrator stopping a pod that just came up) is held and acted on once start-up is done,
  // instead of killing the process half-started with the default action.
  let shutdown: ((signal: string) => Promise<void>) | null = null;
  let heldSignal: string | null = null;
  const onSignal = (signal: string) => {
    if (shutdown) void shutdown(signal);
    else heldSignal ??= signal;
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));

  const worker = command === 'worker' || config.worker.inProcess ? container.createWorker() : null;
  const app = command === 'serve' ? await buildApp(container, { logger }) : null;
  let sandboxServer: http.Server | null = null;

  if (app) {
    await app.listen({ port: config.http.port, host: config.http.host });
    if (config.http.sandboxPort) {
      // Everything on the sandbox port is a sandbox request: route it through the same app.
      sandboxServer = nodeHttp.createServer((req, res) => {
        req.url = `/sandbox${req.url ?? '/'}`;
        app.server.emit('request', req, res);
      });
      await new Promise<void>((resolve) => sandboxServer!.listen(config.http.sandboxPort!, config.http.host, resolve));
      logger.info({ port: config.http.sandboxPort }, 'sandbox listening');
    }
  }
  // A worker process has no API: its metrics get a port of their own (serve's are on /metrics).
  const metricsServer =
    !app && config.worker.metricsPort
      ? await serveMetrics(container.metrics.registry, { port: config.worker.metricsPort, host: config.http.host })
      : null;
  if (metricsServer) logger.info({ port: config.worker.metricsPort }, 'worker metrics listening');
  if (worker) {
    await worker.start();
    await container.seedRecurringJobs();
  }
  logger.info({ command, worker: worker !== null }, 'started');

  let stopping = false;
  shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs + 5_000);
    timer.unref();
    // Stop taking requests and drain in-flight ones, then let running jobs finish or release them.
    sandboxServer?.close();
    await app?.close();
    await worker?.stop(config.shutdownTimeoutMs);
    metricsServer?.close();
    await container.close();
    logger.info('stopped');
  };
  if (heldSignal) void shutdown(heldSignal);
}

main(process.argv[2] ?? 'serve').catch((error: unknown) => {
  // Redacted like log lines: a failing connection's message may carry its URL with a password.
  const write = (text: string) => process.stderr.write(redactSecrets(text));
  // A database the service cannot reach is the operator's to fix: the message says what, no stack.
  if (error instanceof DatabaseConnectionError) {
    write(`fatal: ${error.message}\n`);
    process.exit(1);
  }
  write(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  if (error instanceof Error && error.cause) write(`cause: ${String((error.cause as Error).stack ?? error.cause)}\n`);
  process.exit(1);
});
