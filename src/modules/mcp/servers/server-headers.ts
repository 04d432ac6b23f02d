import { errors } from '../../../lib/errors.ts';

export const MAX_HEADERS = 20;
const MAX_VALUE_LENGTH = 8192;
// RFC 9110 token characters.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const BAD_VALUE = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/**
 * Headers the transport or HTTP itself sets: letting a tenant set them would break the protocol
 * (content negotiation, MCP sessions) or smuggle requests, so they are refused.
 */
const RESERVED = new Set([
  'accept',
  'connection',
  'content-length',
  'content-type',
  'host',
  'keep-alive',
  'last-event-id',
  'mcp-protocol-version',
  'mcp-session-id',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Checks the headers sent to a registered server (400 `validation_error` naming the header). */
export function checkServerHeaders(headers: Record<string, string>): Record<string, string> {
  const entries = Object.entries(headers);
  if (entries.length > MAX_HEADERS) throw errors.field('headers', `at most ${MAX_HEADERS} headers`);
  const seen = new Set<string>();
  for (const [name, value] of entries) {
    const key = name.toLowerCase();
    const field = `headers.${name}`;
    if (!HEADER_NAME.test(name)) throw errors.field(field, 'is not a valid header name');
    if (RESERVED.has(key) || key.startsWith('proxy-'))
      throw errors.field(field, 'is set by the MCP transport and cannot be given');
    if (seen.has(key)) throw errors.field(field, 'is given twice (header names are case-insensitive)');
    if (value.length > MAX_VALUE_LENGTH) throw errors.field(field, `is longer than ${MAX_VALUE_LENGTH} characters`);
    if (BAD_VALUE.test(value)) throw errors.field(field, 'must not contain control characters or line breaks');
    seen.add(key);
  }
  return headers;
}
