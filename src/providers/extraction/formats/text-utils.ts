import chardet from 'chardet';

/** Extracted text is cut at this many characters (about 5 MB), and the metadata says `truncated: true`. */
export const TEXT_LIMIT_CHARS = 5 * 1024 * 1024;

/**
 * Whitespace made uniform: line breaks as "\n", no control characters, runs of spaces as one
 * (tabs are kept: they separate spreadsheet cells), no trailing spaces, at most one blank line.
 */
export function normaliseText(text: string): string {
  return (
    text
      .replace(/\r\n?|[\v\f\u2028\u2029\u0085]/g, '\n')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
      .replace(/[\u0000-\u0008\u000e-\u001f\u007f\ufeff\ufffe\uffff]/g, '')
      .replace(/[ \u00a0\u2000-\u200b\u202f\u205f\u3000]+/g, ' ')
      .replace(/[ \t]+\n/g, '\n')
      .replace(/\n[ ]+/g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
  );
}

/** The pages' text as one: pages normalised and joined by a blank line. */
export function joinPages(pages: readonly string[]): string {
  return pages.filter((p) => p !== '').join('\n\n');
}

/** Collects text up to the limit; `add` answers false once it is full. */
export class TextBuilder {
  readonly #parts: string[] = [];
  readonly #limit: number;
  #length = 0;
  truncated = false;

  constructor(limit = TEXT_LIMIT_CHARS) {
    this.#limit = limit;
  }

  get length(): number {
    return this.#length;
  }

  add(text: string): boolean {
    if (this.truncated) return false;
    const room = this.#limit - this.#length;
    if (text.length > room) {
      this.#parts.push(text.slice(0, room));
      this.#length = this.#limit;
      this.truncated = true;
      return false;
    }
    this.#parts.push(text);
    this.#length += text.length;
    return true;
  }

  toString(): string {
    return this.#parts.join('');
  }
}

/** The text of bytes in an unknown encoding: BOM first, then valid UTF-8, then what chardet guesses. */
export function decodeText(bytes: Uint8Array): { text: string; encoding: string } {
  const encoding = detectEncoding(bytes);
  const bomLength =
    encoding === 'UTF-8' && hasUtf8Bom(bytes) ? 3 : encoding.startsWith('UTF-16') && hasUtf16Bom(bytes) ? 2 : 0;
  return { text: new TextDecoder(encoding, { ignoreBOM: true }).decode(bytes.subarray(bomLength)), encoding };
}

/** The encoding of text bytes, judged from their start, as a label TextDecoder accepts. */
export function detectEncoding(bytes: Uint8Array): string {
  if (hasUtf8Bom(bytes)) return 'UTF-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'UTF-16LE';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'UTF-16BE';
  const sample = bytes.subarray(0, 64 * 1024);
  if (isUtf8(sample)) return 'UTF-8';
  const guess = chardet.detect(sample);
  if (guess && guess !== 'UTF-8' && decoderAccepts(guess)) {
    // WHATWG decoders read "ISO-8859-1" as windows-1252 anyway; name it as it is decoded.
    return guess === 'ISO-8859-1' ? 'windows-1252' : guess;
  }
  return 'windows-1252';
}

function hasUtf8Bom(bytes: Uint8Array): boolean {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

function hasUtf16Bom(bytes: Uint8Array): boolean {
  return (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
}

/** Valid UTF-8, allowing the sample to end inside a character. */
function isUtf8(sample: Uint8Array): boolean {
  // Binary-looking text (NULs) is more likely UTF-16 without a BOM.
  if (sample.includes(0)) return false;
  let end = sample.length;
  // Step back over a multi-byte sequence cut by the sample's end.
  for (let i = 1; i <= 3 && end - i >= 0; i++) {
    const byte = sample[end - i] as number;
    if ((byte & 0xc0) !== 0x80) {
      if (byte >= 0xc0) end -= i;
      break;
    }
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(sample.subarray(0, end));
    return true;
  } catch {
    return false;
  }
}

function decoderAccepts(label: string): boolean {
  try {
    new TextDecoder(label);
    return true;
  } catch {
    return false;
  }
}
