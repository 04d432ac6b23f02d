/** What a template says; the layout turns it into the text and HTML parts the same way for every mail. */
export interface MailContent {
  subject: string;
  /** `Hello Ada,` when the recipient's name is known. */
  greeting: string;
  paragraphs: string[];
  /** The one thing to do, as a button (HTML) and a bare link (text). */
  action?: { label: string; url: string } | undefined;
  /** Facts shown as a small table: `[label, value]`. */
  details?: [string, string][] | undefined;
  /** Text as its author wrote it (a workflow's notification message), kept verbatim in both parts. */
  verbatim?: string | undefined;
}

/** What the layout adds around every mail: who sent it and why the recipient gets it. */
export interface MailFrame {
  /** The tenant the mail is about; null for the service's own mail. */
  tenantName: string | null;
  category: 'security' | 'notification';
  /** Where a user turns notification mail off (the console's profile). */
  profileUrl: string;
}

/** The text and HTML parts of a mail. Every value from people is escaped in the HTML part. */
export function renderLayout(content: MailContent, frame: MailFrame): { text: string; html: string } {
  return { text: renderText(content, frame), html: renderHtml(content, frame) };
}

function footerLines(frame: MailFrame): string[] {
  const from = frame.tenantName ? `Sent for ${frame.tenantName} by DocuVault.` : 'Sent by DocuVault.';
  if (frame.category === 'security') return [from, 'This is a security message about your account: it is always sent.'];
  return [from, `Notification mail can be turned off in your profile: ${frame.profileUrl}`];
}

function renderText(content: MailContent, frame: MailFrame): string {
  const blocks = [content.greeting, ...content.paragraphs];
  if (content.verbatim !== undefined) blocks.push(content.verbatim);
  if (content.action) blocks.push(`${content.action.label}:\n${content.action.url}`);
  if (content.details?.length) blocks.push(content.details.map(([k, v]) => `${k}: ${v}`).join('\n'));
  blocks.push(`-- \n${footerLines(frame).join('\n')}`);
  return `${blocks.join('\n\n')}\n`;
}

function renderHtml(content: MailContent, frame: MailFrame): string {
  const p = (text: string) => `<p style="margin:0 0 16px">${escapeHtml(text)}</p>`;
  const parts = [p(content.greeting), ...content.paragraphs.map(p)];
  if (content.verbatim !== undefined)
    parts.push(`<div style="margin:0 0 16px;white-space:pre-wrap">${escapeHtml(content.verbatim)}</div>`);
  if (content.action) {
    const href = escapeHtml(content.action.url);
    parts.push(
      `<p style="margin:24px 0"><a href="${href}" style="background:#1f4fd1;color:#ffffff;padding:10px 18px;border-radius:4px;text-decoration:none;display:inline-block">${escapeHtml(content.action.label)}</a></p>`,
      `<p style="margin:0 0 16px;font-size:13px;color:#555">Or open this link: <a href="${href}">${href}</a></p>`,
    );
  }
  if (content.details?.length) {
    const rows = content.details.map(
      ([k, v]) =>
        `<tr><th align="left" style="padding:2px 12px 2px 0;font-weight:600">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`,
    );
    parts.push(`<table style="margin:0 0 16px;font-size:14px;border-collapse:collapse">${rows.join('')}</table>`);
  }
  const footer = footerLines(frame)
    .map((line) => escapeHtml(line))
    .join('<br>');
  return [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${escapeHtml(content.subject)}</title></head>`,
    '<body style="margin:0;padding:24px;background:#f4f5f7;font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#1d1d1f">',
    '<div style="max-width:560px;margin:0 auto;background:#ffffff;padding:24px;border-radius:6px">',
    frame.tenantName ? `<p style="margin:0 0 16px;font-size:13px;color:#555">${escapeHtml(frame.tenantName)}</p>` : '',
    ...parts,
    `<hr style="border:none;border-top:1px solid #ddd;margin:24px 0 12px"><p style="margin:0;font-size:12px;color:#666">${footer}</p>`,
    '</div></body></html>',
    '',
  ].join('\n');
}

/** Text as HTML text or attribute value. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
