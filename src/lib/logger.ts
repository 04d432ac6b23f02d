import { type DestinationStream, type Logger as PinoLogger, pino } from 'pino';
import { redactSecrets } from './log-redaction.ts';

/** The slice of a pino logger the service uses, `(object, message)` with errors under `err`; tests pass their own. */
export interface Logger {
  debug(obj: unknown, msg?: string): void;
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

const noop = (): void => {};

/** For callers that pass no logger. */
export const silentLogger: Logger = { debug: noop, info: noop, warn: noop, error: noop };

/**
 * The process's one pino logger, shared by the HTTP server (Fastify's request logs), the
 * container, the worker and every module. Every line passes through `redactSecrets` on its way
 * to the destination (standard output unless given), whoever logged it and whatever it holds.
 */
export function createLogger(options: { level: string; destination?: DestinationStream }): PinoLogger {
  const destination = options.destination ?? pino.destination({ dest: 1, sync: true });
  const redacting: DestinationStream = { write: (line: string) => destination.write(redactSecrets(line)) };
  return pino({ level: options.level }, redacting);
}
