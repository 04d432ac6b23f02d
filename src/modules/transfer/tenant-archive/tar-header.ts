/**
 * The few bytes of the tar format the export writes itself (so its files can go from the blob
 * store's buffers to the archive without a stream per entry): a ustar header per regular file,
 * zero padding to the next 512-byte block, and the two zero blocks that end an archive. Byte for
 * byte what tar-stream's pack wrote before (mode 0644, mtime 0, uid/gid 0, no user names), and
 * read back by tar-stream's extract like any ustar archive.
 */
export const BLOCK = 512;

/** The end of an archive: two zero blocks. */
export const END_OF_ARCHIVE = new Uint8Array(2 * BLOCK);
const ZEROS = new Uint8Array(BLOCK);

/** Zero bytes that pad an entry of `size` bytes to its last block (empty when it fills it). */
export function padding(size: number): Uint8Array {
  const rest = size % BLOCK;
  return rest === 0 ? ZEROS.subarray(0, 0) : ZEROS.subarray(0, BLOCK - rest);
}

function octal(value: number, digits: number): string {
  return `${value.toString(8).padStart(digits, '0')} `;
}

/** The 512-byte ustar header of a regular file `name` of `size` bytes. */
export function fileHeader(name: string, size: number): Buffer {
  const header = Buffer.alloc(BLOCK);
  if (Buffer.byteLength(name) !== name.length) throw new Error(`tar entry name is not ASCII: ${name}`);
  let base = name;
  let prefix = '';
  if (base.length > 100) {
    // ustar: the path split at a slash into a prefix (≤ 155 bytes) and a name (≤ 100 bytes).
    const cut = name.lastIndexOf('/', name.length - 1);
    prefix = cut > 0 ? name.slice(0, cut) : '';
    base = cut > 0 ? name.slice(cut + 1) : name;
    if (base.length > 100 || prefix.length > 155 || base.length === 0)
      throw new Error(`tar entry name too long for ustar: ${name}`);
  }
  header.write(base, 0, 'latin1');
  header.write(octal(0o644, 6), 100, 'latin1');
  header.write(octal(0, 6), 108, 'latin1');
  header.write(octal(0, 6), 116, 'latin1');
  if (size.toString(8).length > 11) {
    // Beyond 8 GiB: the base-256 form (first byte 0x80), which tar-stream and GNU tar read.
    header[124] = 0x80;
    let rest = size;
    for (let i = 11; i > 0; i--) {
      header[124 + i] = rest % 256;
      rest = Math.floor(rest / 256);
    }
  } else header.write(octal(size, 11), 124, 'latin1');
  header.write(octal(0, 11), 136, 'latin1');
  header[156] = 0x30; // '0': a regular file
  header.write('ustar\u000000', 257, 'latin1');
  header.write(octal(0, 6), 329, 'latin1');
  header.write(octal(0, 6), 337, 'latin1');
  if (prefix) header.write(prefix, 345, 'latin1');
  let sum = 8 * 32; // the checksum field counts as eight spaces
  for (let i = 0; i < BLOCK; i++) if (i < 148 || i >= 156) sum += header[i]!;
  header.write(octal(sum, 6), 148, 'latin1');
  return header;
}
