/**
 * A database the service cannot use at all: unreachable, refusing the credentials, or missing.
 * Its message says which, for an operator reading the start-up output (issue 26 item 8).
 */
export class DatabaseConnectionError extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'DatabaseConnectionError';
  }
}

interface SystemErrorLike {
  code?: unknown;
  message?: unknown;
  address?: unknown;
  port?: unknown;
  hostname?: unknown;
  errors?: unknown;
}

/** `host:port` of a socket error (each address tried, for `localhost` answering on ::1 and 127.0.0.1). */
function endpoints(error: SystemErrorLike): string {
  const all = Array.isArray(error.errors) ? (error.errors as SystemErrorLike[]) : [error];
  const seen = all
    .filter((e) => e.address !== undefined)
    .map((e) => (String(e.address).includes(':') ? `[${e.address}]:${e.port}` : `${e.address}:${e.port}`));
  return seen.length > 0 ? [...new Set(seen)].join(', ') : 'the database server';
}

// PostgreSQL SQLSTATEs met before any statement runs.
const SQLSTATES: Record<string, string> = {
  '28P01': 'authentication failed',
  '28000': 'authentication refused',
  '3D000': 'database missing',
  '53300': 'too many connections',
  '57P03': 'the server is starting up or shutting down',
};

/**
 * What went wrong reaching the database, when `error` is a connection-level failure (network, TLS,
 * authentication, missing database); null for anything else (a failing statement).
 */
export function connectionFailure(error: unknown): string | null {
  if (!error || typeof error !== 'object') return null;
  const e = error as SystemErrorLike;
  const message = typeof e.message === 'string' ? e.message : '';
  switch (e.code) {
    case 'ECONNREFUSED':
      return `connection refused by ${endpoints(e)} (is PostgreSQL running there? check DATABASE_URL)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `database host${typeof e.hostname === 'string' ? ` "${e.hostname}"` : ''} not found (DNS ${e.code}; check DATABASE_URL)`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `no route to ${endpoints(e)} (${e.code})`;
    case 'ECONNRESET':
      return `connection reset by ${endpoints(e)} (TLS or proxy mismatch?)`;
  }
  if (typeof e.code === 'string' && SQLSTATES[e.code]) return `${SQLSTATES[e.code]}: ${message}`;
  if (/timeout expired|Connection terminated/i.test(message)) return `no answer from the database server (${message})`;
  if (/SSL|certificate/i.test(message)) return `TLS failed: ${message}`;
  return null;
}
