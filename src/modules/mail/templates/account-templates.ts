import { formatTime, greeting, type MailTemplate, tenantOf } from './template.ts';

/** A single-use password token and where it is used (invitations and resets). */
export interface PasswordTokenMail {
  token: string;
  subdomain: string;
  email: string;
  expiresAt: number;
}

export interface EmailChangedMail {
  oldEmail: string;
  newEmail: string;
  /** Which of the two addresses this copy goes to. */
  recipient: 'old' | 'new';
}

export interface SubscriptionChangedMail {
  fromTier: string;
  toTier: string;
  /** `checkout`, `admin` or `provider_event`. */
  reason: string;
}

export interface UsageThresholdMail {
  /** 80 or 100. */
  percent: number;
  used: number;
  limit: number;
  /** The billing month, `YYYY-MM`. */
  period: string;
}

const apiHint = (token: string) =>
  `Using the API instead? POST /api/v1/auth/password/reset with {"token", "new_password"}; the token is ${token}`;

export const invitation: MailTemplate<PasswordTokenMail> = {
  category: 'security',
  render: (d, c) => ({
    subject: `You are invited to ${tenantOf(c)} on DocuVault`,
    greeting: greeting(c),
    paragraphs: [
      `${tenantOf(c)} invited you to DocuVault, where the team keeps its documents. Choose a password to sign in.`,
      `The link works once, until ${formatTime(d.expiresAt)}.`,
      apiHint(d.token),
    ],
    action: { label: 'Choose a password', url: c.links.password(d.token, d.subdomain, d.email) },
    details: [
      ['Workspace', d.subdomain],
      ['E-mail', d.email],
    ],
  }),
};

export const passwordReset: MailTemplate<PasswordTokenMail> = {
  category: 'security',
  render: (d, c) => ({
    subject: `Reset your ${tenantOf(c)} password`,
    greeting: greeting(c),
    paragraphs: [
      `Someone asked to reset the password of your account on ${tenantOf(c)}. If it was not you, ignore this message: your password stays as it is.`,
      `The link works once, until ${formatTime(d.expiresAt)}. Setting a new password signs you out everywhere.`,
      apiHint(d.token),
    ],
    action: { label: 'Choose a new password', url: c.links.password(d.token, d.subdomain, d.email) },
    details: [
      ['Workspace', d.subdomain],
      ['E-mail', d.email],
    ],
  }),
};

export const emailChanged: MailTemplate<EmailChangedMail> = {
  category: 'security',
  render: (d, c) => ({
    subject: `Your e-mail address on ${tenantOf(c)} was changed`,
    greeting: greeting(c),
    paragraphs:
      d.recipient === 'old'
        ? [
            `The sign-in e-mail of your account on ${tenantOf(c)} was changed from ${d.oldEmail} to ${d.newEmail}. Mail for the account now goes there.`,
            `If you did not ask for this, tell an administrator of ${tenantOf(c)} at once.`,
          ]
        : [`This address is now the sign-in e-mail of your account on ${tenantOf(c)} (it was ${d.oldEmail}).`],
    action: { label: 'Open DocuVault', url: c.links.home() },
  }),
};

export const subscriptionChanged: MailTemplate<SubscriptionChangedMail> = {
  category: 'notification',
  render: (d, c) => ({
    subject: `${tenantOf(c)}: plan changed from ${titleCase(d.fromTier)} to ${titleCase(d.toTier)}`,
    greeting: greeting(c),
    paragraphs: [
      `The plan of ${tenantOf(c)} changed from ${titleCase(d.fromTier)} to ${titleCase(d.toTier)} (${REASONS[d.reason] ?? d.reason}). The new limits and features apply now.`,
    ],
    action: { label: 'Open DocuVault', url: c.links.home() },
  }),
};

export const usageThreshold: MailTemplate<UsageThresholdMail> = {
  category: 'notification',
  render: (d, c) => ({
    subject:
      d.percent >= 100
        ? `${tenantOf(c)} has used all its AI credits for ${d.period}`
        : `${tenantOf(c)} has used ${d.percent} % of its AI credits for ${d.period}`,
    greeting: greeting(c),
    paragraphs: [
      d.percent >= 100
        ? `${tenantOf(c)} has used its ${d.limit} AI credits for ${d.period}. Semantic and hybrid search and chat answer 402 until the month ends or the plan is upgraded.`
        : `${tenantOf(c)} has used ${d.used} of its ${d.limit} AI credits for ${d.period}. When they are gone, semantic and hybrid search and chat stop until the month ends or the plan is upgraded.`,
    ],
    action: { label: 'Open DocuVault', url: c.links.home() },
    details: [
      ['Used', `${d.used} of ${d.limit}`],
      ['Month', d.period],
    ],
  }),
};

const REASONS: Record<string, string> = {
  checkout: 'a checkout was paid',
  admin: 'changed by the administrator',
  provider_event: 'a change at the billing provider',
};

function titleCase(tier: string): string {
  return tier.charAt(0).toUpperCase() + tier.slice(1);
}
