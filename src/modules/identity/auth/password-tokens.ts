import type { Executor } from '../../../db/executor.ts';
import { newId } from '../../../lib/ids.ts';
import type { ModuleServices } from '../../../platform/module.ts';
import type { User } from '../users/users.repository.ts';
import type { SessionsRepository } from './sessions.repository.ts';
import { hashToken, opaqueToken } from './tokens.ts';

export const RESET_TOKEN_TTL_MS = 60 * 60 * 1000;
export const INVITATION_TOKEN_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** What identity needs of the mail module: writing a mail in its own transaction. */
export type MailWriter = Pick<ModuleServices['mail'], 'enqueue'>;

/**
 * Makes a single-use password token for a user and writes the mail carrying it (its link opens the
 * console's password view), in the caller's transaction. Used for "forgot password" and for
 * invitations without a password.
 */
export async function sendPasswordToken(
  db: Executor,
  deps: { sessions: SessionsRepository; mail: MailWriter },
  input: { user: User; tenantSubdomain: string; kind: 'password_reset' | 'invitation'; now: number },
): Promise<void> {
  const { user, now, kind } = input;
  const token = opaqueToken('prt');
  const expiresAt = now + (kind === 'invitation' ? INVITATION_TOKEN_TTL_MS : RESET_TOKEN_TTL_MS);
  await deps.sessions.insertResetToken(db, {
    id: newId(now),
    tenantId: user.tenantId,
    userId: user.id,
    hash: hashToken(token),
    createdAt: now,
    expiresAt,
  });
  await deps.mail.enqueue(db, {
    tenantId: user.tenantId,
    kind,
    to: user.email,
    user: { id: user.id, name: user.name },
    data: { token, subdomain: input.tenantSubdomain, email: user.email, expiresAt },
    at: now,
  });
}

/** Pulls the reset token out of a mail body or link (tests and tooling). */
export function tokenFromMailBody(body: string): string | null {
  return /\b(prt_[A-Za-z0-9_-]{43})\b/.exec(body)?.[1] ?? null;
}
