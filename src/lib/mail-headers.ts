/**
 * Header safety. Names, subjects and addresses come from people (a user's name, a workflow
 * author's subject, a tenant's sender name), so before any of them reaches a header it is made a
 * single line here: a CR or LF can never start a header of its own (`Bcc:`), and an address is
 * one mailbox, never a list. The transport then encodes what is left (RFC 2047 words).
 */

/** C0 and C1 controls, DEL, and the Unicode line and paragraph separators. */
function isLineBreaking(code: number): boolean {
  return code <= 0x1f || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
}

/** A header value as one line: control characters become spaces, runs of space one, at most `maxLength` characters. */
export function headerText(value: string, maxLength = 200): string {
  let oneLine = '';
  for (const char of value) oneLine += isLineBreaking(char.codePointAt(0)!) ? ' ' : char;
  const line = oneLine.replace(/\s+/g, ' ').trim();
  return line.length <= maxLength ? line : `${line.slice(0, maxLength - 1).trimEnd()}…`;
}

// One mailbox: no spaces, quotes, angle brackets, commas or semicolons (which would make a list); controls are checked apart.
const ADDRESS = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;

/** Whether `value` is exactly one plain e-mail address (what a recipient or MAIL_FROM's address must be). */
export function isMailAddress(value: string): boolean {
  if (value.length > 254 || !ADDRESS.test(value)) return false;
  for (const char of value) if (isLineBreaking(char.codePointAt(0)!)) return false;
  return true;
}

/** `Name <address>` or a bare address (MAIL_FROM); null when it is neither. */
export function parseMailbox(value: string): { name: string | null; address: string } | null {
  const trimmed = value.trim();
  const named = /^(.*?)\s*<([^<>]+)>$/.exec(trimmed);
  const address = (named ? named[2]! : trimmed).trim();
  if (!isMailAddress(address)) return null;
  const name = named ? headerText(named[1]!.replace(/^"(.*)"$/, '$1')) : '';
  return { name: name === '' ? null : name, address };
}
