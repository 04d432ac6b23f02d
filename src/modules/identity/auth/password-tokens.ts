import type { Executor } from '../../../db/executor.ts';
import { newId } from '../../../lib/ids.ts';
import type { MailOutboxRepository } from '../mail/mail-outbox.repository.ts';
import type { User } from '../users/users.repository.ts';
import type { SessionsRepository } from './sessions.repository.ts';
import { hashToken, opaqueToken } from './tokens.ts';

export const RESET_TOKEN_TTL_MS = 60 * 60 * 1000;
export const INVITATION_TOKEN_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Makes a single-use password token for a user and puts the message carrying it into the mail
 * outbox, in the caller's transaction. Used for "forgot password" and for invitations without a password.
 */
export async function sendPasswordToken(
  db: Executor,
  deps: { sessions: SessionsRepository; mail: MailOutboxRepository; publicBaseUrl: string | null },
  input: { user: User; tenantSubdomain: string; kind: 'password_reset' | 'invitation'; now: number },
): Promise<void> {
  const { user, now, kind } = input;
  const token = opaqueToken('prt');
  const ttl = kind === 'invitation' ? INVITATION_TOKEN_TTL_MS : RESET_TOKEN_TTL_MS;
  await deps.sessions.insertResetToken(db, {
    id: newId(now),
    tenantId: user.tenantId,
    userId: user.id,
    hash: hashToken(token),
    createdAt: now,
    expiresAt: now + ttl,
  });
  const link = deps.publicBaseUrl ? `${deps.publicBaseUrl}/reset-password?token=${encodeURIComponent(token)}\n\n` : '';
  const subject = kind === 'invitation' ? 'You have been invited' : 'Reset your password';
  const intro =
    kind === 'invitation'
      ? `Hello ${user.name},\n\nyou have been invited to the workspace "${input.tenantSubdomain}". Choose a password to sign in.`
      : `Hello ${user.name},\n\nsomeone asked to reset the password of your account on "${input.tenantSubdomain}". If it was not you, ignore this message.`;
  const validity = kind === 'invitation' ? '7 days' : '1 hour';
  const body =
    `${intro}\n\n${link}` +
    `Reset token (POST /api/v1/auth/password/reset with {"token", "new_password"}), valid for ${validity}:\n${token}\n`;
  await deps.mail.enqueue(db, { tenantId: user.tenantId, kind, to: user.email, subject, body, at: now });
}

/** Pulls the reset token out of an outbox message body (tests and tooling). */
export function tokenFromMailBody(body: string): string | null {
  return /\b(prt_[A-Za-z0-9_-]{43})\b/.exec(body)?.[1] ?? null;
}
