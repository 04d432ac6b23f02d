import type { MailContent } from './layout.ts';
import type { MailLinks } from './links.ts';

/** `security` mail (invitations, resets, e-mail changes) is always sent; users may turn `notification` mail off. */
export type MailCategory = 'security' | 'notification';

/** What every template may use besides its data. */
export interface RenderContext {
  tenantName: string | null;
  /** The recipient's name when the mail is for a known user. */
  recipientName: string | null;
  links: MailLinks;
}

/** One kind of mail: its category and what it says for its data. */
export interface MailTemplate<D> {
  category: MailCategory;
  render(data: D, context: RenderContext): MailContent;
}

/** `Hello Ada,` or `Hello,`. */
export function greeting(context: RenderContext): string {
  return context.recipientName ? `Hello ${context.recipientName},` : 'Hello,';
}

/** The tenant's name, or a neutral word when the mail belongs to no tenant. */
export function tenantOf(context: RenderContext): string {
  return context.tenantName ?? 'DocuVault';
}

/** `2026-11-28 14:00 UTC`: one unambiguous form for every reader. */
export function formatTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
