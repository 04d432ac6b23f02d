/**
 * The readable strings of binary data: runs of at least `minLength` printable characters, in
 * Windows-1252 and in UTF-16LE (the two ways Office 97-2003 stores text). The last resort for a
 * legacy file whose structure could not be followed.
 */
export function printableStrings(bytes: Uint8Array, minLength = 4): string[] {
  const found: { at: number; text: string }[] = [];
  const printable = (c: number) => (c >= 0x20 && c < 0x7f) || c >= 0xa0 || c === 0x09;
  // 8-bit runs.
  let start = -1;
  for (let i = 0; i <= bytes.length; i++) {
    const c = i < bytes.length ? (bytes[i] as number) : 0;
    if (printable(c)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      if (i - start >= minLength)
        found.push({ at: start, text: new TextDecoder('windows-1252').decode(bytes.subarray(start, i)) });
      start = -1;
    }
  }
  // UTF-16LE runs, at both byte alignments.
  for (const offset of [0, 1]) {
    let from = -1;
    let chars = 0;
    for (let i = offset; i + 1 <= bytes.length; i += 2) {
      const code = i + 1 < bytes.length ? (bytes[i] as number) | ((bytes[i + 1] as number) << 8) : 0;
      const ok =
        code >= 0x20 &&
        code !== 0x7f &&
        (code < 0xd800 || code > 0xdfff) &&
        code < 0xfff0 &&
        (code < 0x80 || code >= 0xa0);
      if (ok) {
        if (from < 0) from = i;
        chars++;
      } else {
        if (from >= 0 && chars >= minLength) {
          const text = Buffer.from(bytes.buffer, bytes.byteOffset + from, chars * 2).toString('utf16le');
          // ASCII read as UTF-16 gives CJK-looking noise: keep runs that are mostly Latin, or real words.
          if (/[A-Za-z\u00c0-\u024f]{2}/.test(text)) found.push({ at: from, text });
        }
        from = -1;
        chars = 0;
      }
    }
  }
  return found
    .sort((a, b) => a.at - b.at)
    .map((f) => f.text.trim())
    .filter((t) => /[\p{L}\p{N}]/u.test(t));
}
