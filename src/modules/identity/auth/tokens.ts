import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { SigningKeys } from './signing-keys.ts';

export const ISSUER = 'docuvault';
export const AUDIENCE = 'docuvault-api';

/** What an access token says about its bearer. */
export interface AccessClaims {
  userId: string;
  tenantId: string;
  sessionId: string;
  role: string;
}

/** Verified tokens remembered per process (an HS256 check through WebCrypto was a quarter of a user-token request's CPU). */
const VERIFIED_MAX = 10_000;

/** Signs and verifies short-lived access tokens (HS256 JWT with `kid`) with the shared signing keys. */
export class AccessTokens {
  private readonly deps: { keys: SigningKeys; ttlSeconds: number; now: () => number };
  /**
   * Token string → its claims, once verified. The same string always verifies the same way, so a
   * repeat only needs the checks that depend on time: expiry, not-before, and its key still
   * verifying (a retired key past its grace ends every token it signed). Successes only, bounded.
   */
  private readonly verified = new Map<string, { claims: AccessClaims; kid: string; expMs: number; nbfMs: number }>();
  constructor(deps: AccessTokens['deps']) {
    this.deps = deps;
  }

  get ttlSeconds(): number {
    return this.deps.ttlSeconds;
  }

  async sign(claims: AccessClaims): Promise<string> {
    const key = await this.deps.keys.signingKey();
    const iat = Math.floor(this.deps.now() / 1000);
    return new SignJWT({ tid: claims.tenantId, sid: claims.sessionId, role: claims.role })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: key.kid })
      .setSubject(claims.userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.deps.ttlSeconds)
      .sign(key.key);
  }

  /** The claims of a valid token, or null for anything else (bad signature, expired, `alg: none`, unknown key). */
  async verify(token: string): Promise<AccessClaims | null> {
    const now = this.deps.now();
    const known = this.verified.get(token);
    if (known) {
      if (known.expMs > now && known.nbfMs <= now && (await this.deps.keys.verificationKey(known.kid)))
        return known.claims;
      this.verified.delete(token);
    }
    try {
      const { payload, protectedHeader } = await jwtVerify(
        token,
        async (header) => {
          if (header.alg !== 'HS256' || typeof header.kid !== 'string')
            throw new joseErrors.JWSInvalid('unexpected key');
          const key = await this.deps.keys.verificationKey(header.kid);
          if (!key) throw new joseErrors.JWKSNoMatchingKey();
          return key.key;
        },
        {
          algorithms: ['HS256'],
          issuer: ISSUER,
          audience: AUDIENCE,
          requiredClaims: ['sub', 'exp', 'iat'],
          currentDate: new Date(now),
        },
      );
      const { sub, tid, sid, role, exp, nbf } = payload as Record<string, unknown>;
      if (typeof sub !== 'string' || typeof tid !== 'string' || typeof sid !== 'string' || typeof role !== 'string')
        return null;
      const claims = { userId: sub, tenantId: tid, sessionId: sid, role };
      if (typeof exp === 'number' && typeof protectedHeader.kid === 'string') {
        if (this.verified.size >= VERIFIED_MAX) this.verified.delete(this.verified.keys().next().value!);
        this.verified.set(token, {
          claims,
          kid: protectedHeader.kid,
          expMs: exp * 1000,
          nbfMs: typeof nbf === 'number' ? nbf * 1000 : Number.NEGATIVE_INFINITY,
        });
      }
      return claims;
    } catch {
      return null;
    }
  }
}

/** A high-entropy opaque secret with a readable prefix (`rt_`, `prt_`). */
export function opaqueToken(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/** Opaque tokens are random, so a fast hash is enough to store them. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * CSRF tokens bound to a session: `<nonce>.<HMAC(secret, session id + nonce)>`. Every token made
 * for a session verifies for it, so `GET /auth/csrf` can hand out fresh ones; none works for another.
 */
export class CsrfTokens {
  private readonly secret: () => Promise<Buffer>;
  constructor(secret: () => Promise<Buffer>) {
    this.secret = secret;
  }

  async issue(sessionId: string): Promise<string> {
    const nonce = randomBytes(16).toString('base64url');
    return `${nonce}.${this.mac(await this.secret(), sessionId, nonce)}`;
  }

  async verify(sessionId: string, presented: string | undefined): Promise<boolean> {
    if (!presented) return false;
    const match = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/.exec(presented);
    if (!match) return false;
    const expected = Buffer.from(this.mac(await this.secret(), sessionId, match[1]!), 'base64url');
    const actual = Buffer.from(match[2]!, 'base64url');
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  private mac(secret: Buffer, sessionId: string, nonce: string): string {
    return createHmac('sha256', secret).update(`csrf:${sessionId}:${nonce}`).digest('base64url');
  }
}
