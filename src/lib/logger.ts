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
