import fs from 'node:fs';
import path from 'node:path';
import { parseMailbox } from '../lib/mail-headers.ts';

/** The service's whole configuration, read once from the environment and frozen. */
export interface Config {
  readonly http: {
    readonly port: number;
    readonly host: string;
    readonly sandboxPort: number | null;
    readonly publicBaseUrl: string | null;
    readonly bodyLimitBytes: number;
    /** Which proxies' X-Forwarded-For to believe for the client IP (TRUST_PROXY: Fastify's `trustProxy`). */
    readonly trustProxy: boolean | number | string;
  };
  readonly dataDir: string;
  /** `preparedStatements`: hot queries as named server-side statements on PostgreSQL (src/db/prepared-statements.ts). */
  readonly database: { readonly url: string | null; readonly preparedStatements: boolean };
  readonly redisUrl: string | null;
  readonly adminApiKey: string | null;
  readonly allowPrivateNetworkTargets: boolean;
  readonly logLevel: string;
  readonly blobs:
    | { readonly driver: 'local' }
    | {
        readonly driver: 's3';
        readonly endpoint: string | null;
        readonly bucket: string;
        readonly region: string;
        readonly accessKeyId: string | null;
        readonly secretAccessKey: string | null;
        readonly forcePathStyle: boolean;
        /** Key prefix inside the bucket, so several deployments can share one. */
        readonly prefix: string;
      };
  readonly worker: {
    /** Whether `serve` also runs a job worker in the same process. */
    readonly inProcess: boolean;
    readonly concurrency: number;
    readonly pollIntervalMs: number;
    readonly leaseMs: number;
    /** `worker` processes serve `GET /metrics` on this port (on HOST); null = no port. */
    readonly metricsPort: number | null;
  };
  readonly shutdownTimeoutMs: number;
  readonly auth: {
    /** HMAC key for CSRF tokens; null = generated once and kept in the database (server_secrets). */
    readonly secret: string | null;
    readonly accessTokenTtlSeconds: number;
    /** A new JWT signing key is made when the newest is older than this. */
    readonly signingKeyRotationMs: number;
    /** Failed credential checks (docs/identity-and-access.md, "Sign-in limits"). */
    readonly signInLimits: {
      /** Failures of one account (tenant, e-mail) within the window that lock it. */
      readonly accountMaxFailures: number;
      /** Failures from one client IP (an IPv6 /64) within the window that lock it. */
      readonly clientMaxFailures: number;
      /** The window failures are counted in, and the first lock's length. */
      readonly windowMs: number;
      /** Each further lock of a subject doubles, up to this. */
      readonly maxLockMs: number;
    };
  };
  readonly ai: {
    /** `local`: classical NLP, no network; `openai`: any OpenAI-compatible endpoint. */
    readonly provider: 'local' | 'openai';
    readonly openai: {
      readonly baseUrl: string | null;
      readonly apiKey: string | null;
      readonly chatModel: string;
      readonly embeddingModel: string;
      readonly embeddingDimensions: number | null;
      /** Null turns transcription off. */
      readonly transcriptionModel: string | null;
      readonly tokensPerMinute: number | null;
      readonly maxRetries: number;
      readonly timeoutMs: number;
    };
  };
  /** Keyword and semantic scoring (docs/search.md, "Tuning"). */
  readonly search: {
    /** A word-vector neighbour of a query word needs this cosine to count (soft matching). */
    readonly softThreshold: number;
    /** A neighbour's occurrence counts cosine^softPower. */
    readonly softPower: number;
    /** Neighbours per query word, at most. */
    readonly softNeighbours: number;
    /** Weight of the passage-vector cosine in the semantic score (the rest: the soft keyword score). */
    readonly vectorWeight: number;
    /** Least semantic score of a find that holds none of the query's words. */
    readonly semanticFloor: number;
    /** The coordination factor (share of the query's words held) on the soft keyword score too, not only the exact one. */
    readonly softCoordination: boolean;
    /** Memory for the in-memory search indexes of all tenants in one process (MB); one tenant's vectors past it are not loaded. */
    readonly memoryMb: number;
  };
  readonly processing: {
    /** Extraction threads (parsing, OCR); null = one per core but one, at most 4. */
    readonly threads: number | null;
    /** Time allowed to extract one file (waiting for the OCR engine not counted). */
    readonly timeoutMs: number;
    /** Least time each OCR'd page gets when it starts: a long scan goes on page by page. */
    readonly ocrPageTimeoutMs: number;
    /** System tesseract processes reading pages at once; null = two, or one on a one-core machine. */
    readonly ocrProcesses: number | null;
    /** The most one file's extraction may take, however many pages it OCRs. */
    readonly maxTimeoutMs: number;
    /** Heap limit of each extraction thread. */
    readonly memoryMb: number;
    /** Decode budget: the most one decompressed stream or part of a file may unpack to (a thread may hold twice it). */
    readonly maxDecodedMb: number;
  };
  /** The expression sandbox: limits on user-written workflow expressions and schemas (docs/security.md). */
  readonly expressions: {
    readonly timeoutMs: number;
    readonly memoryMb: number;
    readonly maxInputBytes: number;
    readonly maxResultBytes: number;
    readonly threads: number;
  };
  readonly rateLimit: {
    readonly enabled: boolean;
    /** Prefix of the Redis counter keys (several deployments can share one Redis). */
    readonly redisKeyPrefix: string;
    /** Per client IP, for unauthenticated auth requests whatever tenant they name (register, refresh, password forgot and reset; login is limited by its failures). */
    readonly anonymousPerMinute: number;
    /** When the Redis counter store fails: let requests through, refuse them, or refuse only auth routes. */
    readonly onStoreFailure: 'open' | 'closed' | 'auto';
    /** The ceiling of tiers without a tier-wide limit (Enterprise), shown in X-RateLimit-* and enforced as abuse protection. */
    readonly unlimitedTierPerMinute: number;
  };
  readonly webhooks: {
    /** Delay before each automatic retry of a failed delivery, in ms (WEBHOOK_RETRY_DELAYS, in seconds). */
    readonly retryDelaysMs: readonly number[];
    /** A webhook whose endpoint has failed for this long without a success is disabled. */
    readonly disableAfterMs: number;
    /** Deliveries one worker process sends to one webhook at the same time. */
    readonly maxConcurrencyPerEndpoint: number;
  };
  readonly billing: {
    /** Who takes payment for checkouts: `manual` (an administrator completes them) or `stripe` (BILLING_PROVIDER). */
    readonly provider: 'manual' | 'stripe';
    /** How long a checkout stays open (CHECKOUT_TTL_MINUTES; Stripe allows 30 minutes to 24 hours). */
    readonly checkoutTtlMs: number;
    readonly stripe: {
      readonly apiKey: string | null;
      readonly webhookSecret: string | null;
      /** Stripe's API base (STRIPE_API_BASE), default https://api.stripe.com; tests point it at a local server. */
      readonly apiBase: string | null;
      /** Price id of each paid tier (STRIPE_PRICE_STARTER, _PRO, _TEAM, _ENTERPRISE); a tier without one cannot be bought through Stripe. */
      readonly prices: {
        readonly starter: string | null;
        readonly pro: string | null;
        readonly team: string | null;
        readonly enterprise: string | null;
      };
    };
  };
  readonly mcp: {
    /** Time allowed for one call to a registered MCP server (connect, initialise, list or call), MCP_CALL_TIMEOUT_MS. */
    readonly callTimeoutMs: number;
  };
  readonly imports: {
    /** Root of the Google Drive API (GOOGLE_DRIVE_API_URL); tests point it at a local server speaking Drive v3. */
    readonly driveApiUrl: string;
    /** Google's OAuth token endpoint, used to refresh access tokens (GOOGLE_OAUTH_TOKEN_URL). */
    readonly oauthTokenUrl: string;
    /** Delay before each automatic retry of a failed file, in ms (IMPORT_RETRY_DELAYS, in seconds). */
    readonly retryDelaysMs: readonly number[];
    /** Files of one project imported at the same time (IMPORT_CONCURRENCY). */
    readonly concurrency: number;
  };
  readonly outbound: {
    /** A PEM file of certificates outbound HTTPS trusts on top of Node's store (OUTBOUND_EXTRA_CA_FILE). */
    readonly extraCaFile: string | null;
  };
  /** Mail that leaves the service (docs/mail.md). */
  readonly mail: {
    /** `smtp://user:pass@host:587` (STARTTLS) or `smtps://...:465`; null: each mail is written as an `.eml` under `DATA_DIR/mail/` (SMTP_URL). */
    readonly smtpUrl: string | null;
    /** Connections kept open to the relay (SMTP_MAX_CONNECTIONS). */
    readonly smtpMaxConnections: number;
    /** The From address, and the display name of mail that belongs to no tenant (MAIL_FROM). */
    readonly from: { readonly name: string | null; readonly address: string };
    /** Delay before each retry of a mail the relay did not take, in ms (MAIL_RETRY_DELAYS, in seconds); after the last, the mail is dead. */
    readonly retryDelaysMs: readonly number[];
  };
  /** The audit trail (docs/audit.md). */
  readonly audit: {
    /** How long a deleted tenant's records are kept before the purge removes them, in ms (AUDIT_RETENTION_DAYS). */
    readonly retentionMs: number;
    /** Reads are batched: written when this many wait (AUDIT_BATCH_SIZE)... */
    readonly batchSize: number;
    /** ...or this long after the first (AUDIT_FLUSH_MS). */
    readonly flushMs: number;
  };
  /** Per-tenant storage providers and migrations between them (docs/storage.md). */
  readonly storage: {
    /** `s3://bucket/prefix/{tenant_id}?endpoint=...` or `file:///dir/{tenant_id}`; null: no dedicated provider. */
    readonly dedicatedUrl: string | null;
    /** Credentials of a dedicated S3 store; null: the S3_* ones, else the SDK's default chain. */
    readonly dedicatedAccessKeyId: string | null;
    readonly dedicatedSecretAccessKey: string | null;
    /** Delay before each automatic retry of a file that failed to copy, in ms. */
    readonly retryDelaysMs: readonly number[];
    /** How long source copies are kept after a successful migration, in ms. */
    readonly retentionMs: number;
    /** Files copied at the same time by one migration run. */
    readonly copyConcurrency: number;
    /** `id:base64key,...` (32-byte keys, first seals); empty: one key kept in the database. */
    readonly encryptionKeys: readonly { id: string; key: string }[];
    /** Who is told a migration finished when the request names no `initiated_by_email`. */
    readonly notifyEmail: string | null;
  };
  /** Tenant exports (docs/tenant-export.md). */
  readonly tenantExports: {
    /** How long a finished export can be downloaded (`EXPORT_RETENTION_HOURS`, default 72), in ms. */
    readonly retentionMs: number;
  };
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

type Env = Record<string, string | undefined>;

/** Collects every problem instead of stopping at the first, so one start shows them all. */
class EnvReader {
  readonly problems: string[] = [];
  private readonly env: Env;
  constructor(env: Env) {
    this.env = env;
  }

  private raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  string(name: string, fallback: string): string;
  string(name: string, fallback: null): string | null;
  string(name: string, fallback: string | null): string | null {
    return this.raw(name) ?? fallback;
  }

  int(name: string, fallback: number, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) {
      this.problems.push(`${name} must be an integer between ${min} and ${max} (got "${value}")`);
      return fallback;
    }
    return n;
  }

  /** A finite decimal number (fractions allowed) within [min, max]. */
  number(name: string, fallback: number, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isFinite(n) || n < min || n > max) {
      this.problems.push(`${name} must be a number between ${min} and ${max} (got "${value}")`);
      return fallback;
    }
    return n;
  }

  /** Comma-separated decimal numbers (fractions allowed), each within [min, max]; at least one. */
  numberList(
    name: string,
    fallback: readonly number[],
    { min = 0, max = Number.MAX_SAFE_INTEGER, maxItems = 100 } = {},
  ): number[] {
    const value = this.raw(name);
    if (value === undefined) return [...fallback];
    const items = value.split(',').map((v) => v.trim());
    const numbers = items.map(Number);
    if (
      items.length > maxItems ||
      items.some((v) => v === '') ||
      numbers.some((n) => !Number.isFinite(n) || n < min || n > max)
    ) {
      this.problems.push(
        `${name} must be 1 to ${maxItems} comma-separated numbers between ${min} and ${max} (got "${value}")`,
      );
      return [...fallback];
    }
    return numbers;
  }

  optionalInt(name: string, opts: { min?: number; max?: number } = {}): number | null {
    return this.raw(name) === undefined ? null : this.int(name, 0, opts);
  }

  bool(name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['true', '1', 'yes', 'on'].includes(value)) return true;
    if (['false', '0', 'no', 'off'].includes(value)) return false;
    this.problems.push(`${name} must be true or false (got "${value}")`);
    return fallback;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
    return fallback;
  }

  url(name: string, protocols: readonly string[]): string | null {
    const value = this.raw(name);
    if (value === undefined) return null;
    try {
      const parsed = new URL(value);
      if (!protocols.includes(parsed.protocol)) {
        this.problems.push(`${name} must be a ${protocols.join(' or ')} URL (got "${parsed.protocol}")`);
        return null;
      }
      return value;
    } catch {
      this.problems.push(`${name} must be a valid URL`);
      return null;
    }
  }

  require(name: string, value: string | null, why: string): string {
    if (value === null) {
      this.problems.push(`${name} is required ${why}`);
      return '';
    }
    return value;
  }
}

/** `id:base64key,id:base64key` (each key 32 bytes); an empty list when unset. */
function parseKeyList(r: EnvReader, name: string): { id: string; key: string }[] {
  const value = r.string(name, null);
  if (value === null) return [];
  const keys = value.split(',').map((item) => {
    const at = item.indexOf(':');
    return { id: item.slice(0, at).trim(), key: item.slice(at + 1).trim() };
  });
  if (keys.some((k) => !/^[A-Za-z0-9_-]{1,32}$/.test(k.id) || Buffer.from(k.key, 'base64').length !== 32)) {
    r.problems.push(`${name} must be comma-separated id:key pairs, each key 32 bytes in base64`);
    return [];
  }
  return keys;
}

/** TRUST_PROXY: unset or `false` (the socket's address is the client), `true`, a hop count, or addresses/CIDRs. */
function parseTrustProxy(value: string | null): boolean | number | string {
  if (value === null || ['false', '0', 'no', 'off'].includes(value.toLowerCase())) return false;
  if (['true', 'yes', 'on'].includes(value.toLowerCase())) return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Reads the environment (docs/api-decisions.md §1 and the README's table) into a typed, frozen Config. */
export function loadConfig(env: Env = process.env): Config {
  const r = new EnvReader(env);

  const blobDriver = r.oneOf('BLOB_STORE', ['local', 's3'] as const, 'local');
  const blobs: Config['blobs'] =
    blobDriver === 's3'
      ? {
          driver: 's3',
          endpoint: r.url('S3_ENDPOINT', ['http:', 'https:']),
          bucket: r.require('S3_BUCKET', r.string('S3_BUCKET', null), 'when BLOB_STORE=s3'),
          region: r.string('S3_REGION', 'us-east-1'),
          accessKeyId: r.string('S3_ACCESS_KEY_ID', null),
          secretAccessKey: r.string('S3_SECRET_ACCESS_KEY', null),
          forcePathStyle: r.bool('S3_FORCE_PATH_STYLE', false),
          prefix: r.string('S3_PREFIX', ''),
        }
      : { driver: 'local' };

  const publicBaseUrl = r.url('PUBLIC_BASE_URL', ['http:', 'https:'])?.replace(/\/+$/, '') ?? null;
  const config: Config = {
    http: {
      port: r.int('PORT', 8080, { max: 65535 }),
      host: r.string('HOST', '127.0.0.1'),
      sandboxPort: r.optionalInt('SANDBOX_PORT', { min: 1, max: 65535 }),
      publicBaseUrl,
      bodyLimitBytes: r.int('JSON_BODY_LIMIT_BYTES', 1024 * 1024, { min: 1024 }),
      trustProxy: parseTrustProxy(r.string('TRUST_PROXY', null)),
    },
    dataDir: path.resolve(r.string('DATA_DIR', './data')),
    database: {
      url: r.url('DATABASE_URL', ['postgres:', 'postgresql:']),
      preparedStatements: r.bool('DATABASE_PREPARED_STATEMENTS', true),
    },
    redisUrl: r.url('REDIS_URL', ['redis:', 'rediss:']),
    adminApiKey: r.string('ADMIN_API_KEY', null),
    allowPrivateNetworkTargets: r.bool('ALLOW_PRIVATE_NETWORK_TARGETS', false),
    logLevel: r.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    blobs,
    worker: {
      inProcess: r.bool('WORKER_IN_PROCESS', true),
      concurrency: r.int('WORKER_CONCURRENCY', 8, { min: 1, max: 256 }),
      pollIntervalMs: r.int('WORKER_POLL_INTERVAL_MS', 200, { min: 10, max: 60_000 }),
      leaseMs: r.int('JOB_LEASE_MS', 60_000, { min: 1_000 }),
      metricsPort: r.optionalInt('WORKER_METRICS_PORT', { min: 1, max: 65535 }),
    },
    shutdownTimeoutMs: r.int('SHUTDOWN_TIMEOUT_MS', 10_000, { min: 0 }),
    auth: {
      secret: r.string('AUTH_SECRET', null),
      accessTokenTtlSeconds: r.int('ACCESS_TOKEN_TTL_SECONDS', 900, { min: 30, max: 86_400 }),
      signingKeyRotationMs: r.int('JWT_KEY_ROTATION_DAYS', 30, { min: 1, max: 3650 }) * 86_400_000,
      signInLimits: {
        accountMaxFailures: r.int('LOGIN_ACCOUNT_MAX_FAILURES', 10, { min: 1, max: 10_000 }),
        clientMaxFailures: r.int('LOGIN_CLIENT_MAX_FAILURES', 50, { min: 1, max: 100_000 }),
        windowMs: r.int('LOGIN_FAILURE_WINDOW_SECONDS', 900, { min: 1, max: 86_400 }) * 1000,
        maxLockMs: r.int('LOGIN_LOCKOUT_MAX_SECONDS', 3600, { min: 1, max: 7 * 86_400 }) * 1000,
      },
    },
    ai: {
      provider: r.oneOf('AI_PROVIDER', ['local', 'openai'] as const, 'local'),
      openai: {
        baseUrl: r.url('OPENAI_BASE_URL', ['http:', 'https:']),
        apiKey: r.string('OPENAI_API_KEY', null),
        chatModel: r.string('OPENAI_CHAT_MODEL', 'gpt-4o-mini'),
        embeddingModel: r.string('OPENAI_EMBEDDING_MODEL', 'text-embedding-3-small'),
        embeddingDimensions: r.optionalInt('OPENAI_EMBEDDING_DIMENSIONS', { min: 8, max: 8192 }),
        transcriptionModel: r.string('OPENAI_TRANSCRIPTION_MODEL', 'whisper-1'),
        tokensPerMinute: r.optionalInt('OPENAI_TOKENS_PER_MINUTE', { min: 100, max: 100_000_000 }),
        maxRetries: r.int('OPENAI_MAX_RETRIES', 4, { min: 0, max: 20 }),
        timeoutMs: r.int('OPENAI_TIMEOUT_MS', 60_000, { min: 1_000 }),
      },
    },
    search: {
      softThreshold: r.number('SEARCH_SOFT_THRESHOLD', 0.6, { min: 0.2, max: 1 }),
      softPower: r.number('SEARCH_SOFT_POWER', 3, { min: 1, max: 8 }),
      softNeighbours: r.int('SEARCH_SOFT_NEIGHBOURS', 30, { min: 0, max: 200 }),
      vectorWeight: r.number('SEARCH_VECTOR_WEIGHT', 0.8, { min: 0, max: 1 }),
      semanticFloor: r.number('SEARCH_SEMANTIC_FLOOR', 0.2, { min: 0, max: 1 }),
      softCoordination: r.bool('SEARCH_SOFT_COORDINATION', false),
      memoryMb: r.int('SEARCH_MEMORY_MB', 2048, { min: 16, max: 1_048_576 }),
    },
    processing: {
      threads: r.optionalInt('PROCESSING_THREADS', { min: 1, max: 64 }),
      timeoutMs: r.int('PROCESSING_TIMEOUT_MS', 120_000, { min: 1_000 }),
      ocrPageTimeoutMs: r.int('PROCESSING_OCR_PAGE_TIMEOUT_MS', 30_000, { min: 1_000 }),
      ocrProcesses: r.optionalInt('PROCESSING_OCR_PROCESSES', { min: 1, max: 64 }),
      // Below the extraction job's own 30-minute limit.
      maxTimeoutMs: r.int('PROCESSING_MAX_TIMEOUT_MS', 20 * 60_000, { min: 1_000, max: 25 * 60_000 }),
      memoryMb: r.int('PROCESSING_MEMORY_MB', 512, { min: 64, max: 16_384 }),
      maxDecodedMb: r.int('PROCESSING_MAX_DECODED_MB', 64, { min: 8, max: 4_096 }),
    },
    expressions: {
      timeoutMs: r.int('EXPRESSION_TIMEOUT_MS', 1_000, { min: 10, max: 600_000 }),
      memoryMb: r.int('EXPRESSION_MEMORY_MB', 128, { min: 16, max: 16_384 }),
      maxInputBytes: r.int('EXPRESSION_MAX_INPUT_BYTES', 8 * 1024 * 1024, { min: 1_024 }),
      maxResultBytes: r.int('EXPRESSION_MAX_RESULT_BYTES', 2 * 1024 * 1024, { min: 1_024 }),
      threads: r.int('EXPRESSION_THREADS', 2, { min: 1, max: 64 }),
    },
    rateLimit: {
      enabled: r.bool('RATE_LIMIT_ENABLED', true),
      redisKeyPrefix: r.string('RATE_LIMIT_REDIS_PREFIX', 'dms:rl:'),
      anonymousPerMinute: r.int('RATE_LIMIT_ANONYMOUS_PER_MINUTE', 30, { min: 1 }),
      onStoreFailure: r.oneOf('RATE_LIMIT_REDIS_FAILURE', ['open', 'closed', 'auto'] as const, 'auto'),
      unlimitedTierPerMinute: r.int('RATE_LIMIT_UNLIMITED_TIER_PER_MINUTE', 10_000, { min: 1 }),
    },
    webhooks: {
      // docs/api-decisions.md §8: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; fractions allowed (tests use 0.2).
      retryDelaysMs: r
        .numberList('WEBHOOK_RETRY_DELAYS', [5, 300, 1800, 7200, 18000, 36000, 36000], {
          min: 0,
          max: 7 * 86_400,
          maxItems: 20,
        })
        .map((seconds) => Math.round(seconds * 1000)),
      disableAfterMs: Math.round(
        r.number('WEBHOOK_DISABLE_AFTER_HOURS', 72, { min: 0.0001, max: 24 * 365 }) * 3_600_000,
      ),
      maxConcurrencyPerEndpoint: r.int('WEBHOOK_MAX_CONCURRENCY_PER_ENDPOINT', 4, { min: 1, max: 64 }),
    },
    billing: {
      provider: r.oneOf('BILLING_PROVIDER', ['manual', 'stripe'] as const, 'manual'),
      checkoutTtlMs: r.int('CHECKOUT_TTL_MINUTES', 1440, { min: 30, max: 1440 }) * 60_000,
      stripe: {
        apiKey: r.string('STRIPE_API_KEY', null),
        webhookSecret: r.string('STRIPE_WEBHOOK_SECRET', null),
        apiBase: r.url('STRIPE_API_BASE', ['http:', 'https:']),
        prices: {
          starter: r.string('STRIPE_PRICE_STARTER', null),
          pro: r.string('STRIPE_PRICE_PRO', null),
          team: r.string('STRIPE_PRICE_TEAM', null),
          enterprise: r.string('STRIPE_PRICE_ENTERPRISE', null),
        },
      },
    },
    mcp: {
      callTimeoutMs: r.int('MCP_CALL_TIMEOUT_MS', 30_000, { min: 100, max: 600_000 }),
    },
    imports: {
      driveApiUrl: (r.url('GOOGLE_DRIVE_API_URL', ['http:', 'https:']) ?? 'https://www.googleapis.com/').replace(
        /\/*$/,
        '/',
      ),
      oauthTokenUrl: r.url('GOOGLE_OAUTH_TOKEN_URL', ['http:', 'https:']) ?? 'https://oauth2.googleapis.com/token',
      // Issue 17: 3 retries at 5 s, 30 s and 2 min by default; fractions allowed (tests use 0.05).
      retryDelaysMs: r
        .numberList('IMPORT_RETRY_DELAYS', [5, 30, 120], { min: 0, max: 86_400, maxItems: 10 })
        .map((s) => Math.round(s * 1000)),
      concurrency: r.int('IMPORT_CONCURRENCY', 4, { min: 1, max: 64 }),
    },
    outbound: {
      extraCaFile: (() => {
        const file = r.string('OUTBOUND_EXTRA_CA_FILE', null);
        if (file === null) return null;
        if (!fs.existsSync(file))
          r.problems.push(`OUTBOUND_EXTRA_CA_FILE names a file that does not exist ("${file}")`);
        return path.resolve(file);
      })(),
    },
    mail: (() => {
      const smtpUrl = r.url('SMTP_URL', ['smtp:', 'smtps:']);
      const fromValue = r.string('MAIL_FROM', null);
      if (smtpUrl !== null && fromValue === null)
        r.problems.push(
          'SMTP_URL needs MAIL_FROM (the sender address the relay accepts, e.g. "Acme Docs <docs@acme.example>")',
        );
      // Default sender: noreply@ the public host when it is a domain name, else a reserved name.
      const host = publicBaseUrl ? new URL(publicBaseUrl).hostname : '';
      const domain = /^[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}$/i.test(host) ? host : 'docuvault.localhost';
      const from = parseMailbox(fromValue ?? `DocuVault <noreply@${domain}>`);
      if (from === null) r.problems.push(`MAIL_FROM must be an address or "Name <address>" (got "${fromValue}")`);
      return {
        smtpUrl,
        smtpMaxConnections: r.int('SMTP_MAX_CONNECTIONS', 5, { min: 1, max: 100 }),
        from: from ?? { name: null, address: 'noreply@docuvault.localhost' },
        // 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h: about 16 hours of trying; fractions allowed (tests use 0.2).
        retryDelaysMs: r
          .numberList('MAIL_RETRY_DELAYS', [30, 120, 600, 1800, 3600, 7200, 14_400, 28_800], {
            min: 0,
            max: 7 * 86_400,
            maxItems: 20,
          })
          .map((seconds) => Math.round(seconds * 1000)),
      };
    })(),
    audit: {
      retentionMs: Math.round(r.number('AUDIT_RETENTION_DAYS', 365, { min: 0, max: 36_500 }) * 86_400_000),
      batchSize: r.int('AUDIT_BATCH_SIZE', 500, { min: 1, max: 10_000 }),
      flushMs: r.int('AUDIT_FLUSH_MS', 1000, { min: 10, max: 60_000 }),
    },
    storage: {
      dedicatedUrl: r.url('DEDICATED_STORAGE_URL', ['s3:', 'file:']),
      dedicatedAccessKeyId: r.string('DEDICATED_STORAGE_ACCESS_KEY_ID', null),
      dedicatedSecretAccessKey: r.string('DEDICATED_STORAGE_SECRET_ACCESS_KEY', null),
      // Spec "States > Storage migration": 1, 5 and 15 minutes; fractions allowed (tests use 0.2).
      retryDelaysMs: r
        .numberList('STORAGE_MIGRATION_RETRY_DELAYS', [60, 300, 900], { min: 0, max: 7 * 86_400, maxItems: 10 })
        .map((seconds) => Math.round(seconds * 1000)),
      retentionMs: Math.round(r.number('STORAGE_RETENTION_DAYS', 7, { min: 0, max: 3650 }) * 86_400_000),
      copyConcurrency: r.int('STORAGE_MIGRATION_CONCURRENCY', 4, { min: 1, max: 64 }),
      encryptionKeys: parseKeyList(r, 'STORAGE_ENCRYPTION_KEYS'),
      notifyEmail: r.string('STORAGE_NOTIFY_EMAIL', null),
    },
    tenantExports: {
      // Fractions allowed (tests use a few seconds).
      retentionMs: Math.round(r.number('EXPORT_RETENTION_HOURS', 72, { min: 0.0001, max: 24 * 365 }) * 3_600_000),
    },
  };

  if (config.auth.secret !== null && config.auth.secret.length < 32)
    r.problems.push('AUTH_SECRET must be at least 32 characters');
  if (config.ai.provider === 'openai' && config.ai.openai.baseUrl === null && config.ai.openai.apiKey === null) {
    r.problems.push('AI_PROVIDER=openai needs OPENAI_API_KEY (OpenAI itself) or OPENAI_BASE_URL (a compatible server)');
  }
  if (
    config.billing.provider === 'stripe' &&
    (config.billing.stripe.apiKey === null || config.billing.stripe.webhookSecret === null)
  ) {
    r.problems.push('BILLING_PROVIDER=stripe needs STRIPE_API_KEY and STRIPE_WEBHOOK_SECRET');
  }
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return deepFreeze(config);
}
