/**
 * Credentials out of log lines (docs/security.md, "Logs"). Applied to every serialised line the
 * service's logger writes (request logs, error logs with their stacks, job and outbound-call
 * logs), so a secret is caught wherever it sits in the line, however a caller logged it.
 */

export const REDACTED = '[REDACTED]';

/** Query-string parameters whose values are credentials (compared case-insensitively). */
export const SECRET_QUERY_PARAMETERS = [
  'api_key',
  'apikey',
  'api-key',
  'key',
  'access_token',
  'refresh_token',
  'id_token',
  'token',
  'jwt',
  'secret',
  'client_secret',
  'signature',
  'sig',
  'password',
  'passwd',
  'pwd',
  'code',
  'auth',
  'authorization',
  'csrf_token',
  'x-amz-signature',
  'x-amz-credential',
  'x-amz-security-token',
  'x-goog-signature',
  'x-goog-credential',
] as const;

/** Field and header names whose values are credentials wherever they appear in a logged object. */
export const SECRET_FIELDS = [
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'x-csrf-token',
  'cookie',
  'set-cookie',
  'password',
  'new_password',
  'current_password',
  'secret',
  'client_secret',
  'api_key',
  'access_token',
  'refresh_token',
  'token',
  'x-amz-security-token',
] as const;

const escapeRegExp = (s: string) => s.replace(/[-[\]{}()*+?.,\\^$|#]/g, '\\$&');
const alternatives = (names: readonly string[]) => names.map(escapeRegExp).join('|');

interface Rule {
  /** A cheap look for what the pattern cannot match without, so most lines skip the regex. */
  maybe(line: string): boolean;
  pattern: RegExp;
  replacement: string;
}

// Each rule keeps what names the secret and drops its value.
const RULES: Rule[] = [
  {
    // `?name=value` / `&name=value`, also percent-encoded (`%3F`, `%26`, `%3D`: a URL inside a URL).
    maybe: (line) => line.includes('=') || line.includes('%3D') || line.includes('%3d'),
    pattern: new RegExp(
      `((?:[?&;]|%3F|%26)(?:${alternatives(SECRET_QUERY_PARAMETERS)})(?:=|%3D))(?:(?!%26)[^&#\\s"'\\\\<>])*`,
      'gi',
    ),
    replacement: `$1${REDACTED}`,
  },
  {
    // `"name":"value"` or `"name":[...]`: a field of the serialised line, at any depth.
    maybe: () => true,
    pattern: new RegExp(
      `("(?:${alternatives(SECRET_FIELDS)})"\\s*:\\s*)(?:"(?:[^"\\\\]|\\\\.)*"|\\[(?:[^\\]"]|"(?:[^"\\\\]|\\\\.)*")*\\])`,
      'gi',
    ),
    replacement: `$1"${REDACTED}"`,
  },
  {
    // `scheme://user:password@host` (database, Redis and proxy URLs).
    maybe: (line) => line.includes('://') && line.includes('@'),
    pattern: /(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s:@"]*:[^/\s@"]*@/gi,
    replacement: `$1${REDACTED}@`,
  },
  {
    // `Authorization` values written out as text.
    maybe: (line) => /bearer|basic/i.test(line),
    pattern: /(\b(?:Bearer|Basic)\s+)[A-Za-z0-9._~+/=-]{6,}/gi,
    replacement: `$1${REDACTED}`,
  },
  {
    // The service's own secrets wherever they stand: API keys, refresh and reset tokens, webhook
    // secrets, the administrator key.
    maybe: (line) => line.includes('_'),
    pattern: /\b((?:ak_(?:live|test)|rt|prt|whsec|adm)_)[A-Za-z0-9_-]{16,}/g,
    replacement: `$1${REDACTED}`,
  },
  {
    // JSON Web Tokens (access tokens).
    maybe: (line) => line.includes('eyJ'),
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
    replacement: REDACTED,
  },
];

/** `text` with every credential value found in it replaced by `[REDACTED]`. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const rule of RULES) if (rule.maybe(out)) out = out.replace(rule.pattern, rule.replacement);
  return out;
}
