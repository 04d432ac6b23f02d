/** The slice of a pino logger the worker uses: `(object, message)`, errors under `err`. */
export interface WorkerLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const noop = (): void => {};

/** For callers that pass no logger. */
export const silentLogger: WorkerLogger = { debug: noop, info: noop, warn: noop, error: noop };
