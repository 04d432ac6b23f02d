import path from 'node:path';

/** The service's whole configuration, read once from the environment and frozen. */
export interface Config {
  readonly http: {
    readonly port: number;
    readonly host: string;
    readonly sandboxPort: number | null;
    readonly publicBaseUrl: string | null;
    readonly bodyLimitBytes: number;
  };
  readonly dataDir: string;
  readonly database: { readonly url: string | null };
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
  };
  readonly shutdownTimeoutMs: number;
  readonly auth: {
    /** HMAC key for CSRF tokens; null = generated once and kept in the database (server_secrets). */
    readonly secret: string | null;
    readonly accessTokenTtlSeconds: number;
    /** A new JWT signing key is made when the newest is older than this. */
    readonly signingKeyRotationMs: number;
  };
  readonly rateLimit: {
    readonly enabled: boolean;
    /** Prefix of the Redis counter keys (several deployments can share one Redis). */
    readonly redisKeyPrefix: string;
    /** Per client IP, for unauthenticated auth requests that name no tenant (register, refresh, reset). */
    readonly anonymousPerMinute: number;
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

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Reads the environment (contract §1 and the README's table) into a typed, frozen Config. */
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

  const config: Config = {
    http: {
      port: r.int('PORT', 8080, { max: 65535 }),
      host: r.string('HOST', '127.0.0.1'),
      sandboxPort: r.optionalInt('SANDBOX_PORT', { min: 1, max: 65535 }),
      publicBaseUrl: r.url('PUBLIC_BASE_URL', ['http:', 'https:'])?.replace(/\/+$/, '') ?? null,
      bodyLimitBytes: r.int('JSON_BODY_LIMIT_BYTES', 1024 * 1024, { min: 1024 }),
    },
    dataDir: path.resolve(r.string('DATA_DIR', './data')),
    database: { url: r.url('DATABASE_URL', ['postgres:', 'postgresql:']) },
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
    },
    shutdownTimeoutMs: r.int('SHUTDOWN_TIMEOUT_MS', 10_000, { min: 0 }),
    auth: {
      secret: r.string('AUTH_SECRET', null),
      accessTokenTtlSeconds: r.int('ACCESS_TOKEN_TTL_SECONDS', 900, { min: 30, max: 86_400 }),
      signingKeyRotationMs: r.int('JWT_KEY_ROTATION_DAYS', 30, { min: 1, max: 3650 }) * 86_400_000,
    },
    rateLimit: {
      enabled: r.bool('RATE_LIMIT_ENABLED', true),
      redisKeyPrefix: r.string('RATE_LIMIT_REDIS_PREFIX', 'dms:rl:'),
      anonymousPerMinute: r.int('RATE_LIMIT_ANONYMOUS_PER_MINUTE', 30, { min: 1 }),
    },
  };

  if (config.auth.secret !== null && config.auth.secret.length < 32) r.problems.push('AUTH_SECRET must be at least 32 characters');
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return deepFreeze(config);
}
