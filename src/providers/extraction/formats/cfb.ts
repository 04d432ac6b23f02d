import { isoDate } from './context.ts';

// A reader for the OLE compound file (CFB) container of .doc, .xls and .ppt: enough to get a named
// stream out. Every chain is bounded and checked for loops, since the input may be hostile.

const SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const END_OF_CHAIN = 0xfffffffe;
const FREE = 0xffffffff;
const NO_STREAM = 0xffffffff;

interface DirectoryEntry {
  name: string;
  type: number;
  left: number;
  right: number;
  child: number;
  start: number;
  size: number;
}

/** Whether bytes start with the CFB signature. */
export function isCfb(bytes: Uint8Array): boolean {
  return SIGNATURE.every((b, i) => bytes[i] === b);
}

/** An OLE compound file read from memory. Throws on a damaged container. */
export class CompoundFile {
  readonly #bytes: Buffer;
  readonly #sectorSize: number;
  readonly #miniSectorSize: number;
  readonly #miniCutoff: number;
  readonly #fat: Uint32Array;
  readonly #miniFat: Uint32Array;
  readonly #entries: DirectoryEntry[];
  #miniStream: Buffer | null = null;

  constructor(bytes: Buffer) {
    if (bytes.length < 512 || !isCfb(bytes)) throw new Error('not an OLE compound file');
    this.#bytes = bytes;
    const sectorShift = bytes.readUInt16LE(0x1e);
    const miniShift = bytes.readUInt16LE(0x20);
    if ((sectorShift !== 9 && sectorShift !== 12) || miniShift !== 6) throw new Error('unknown OLE sector size');
    this.#sectorSize = 1 << sectorShift;
    this.#miniSectorSize = 1 << miniShift;
    this.#miniCutoff = bytes.readUInt32LE(0x38) || 4096;
    this.#fat = this.#readFat(bytes.readUInt32LE(0x2c), bytes.readUInt32LE(0x44), bytes.readUInt32LE(0x48));
    const directory = this.#chain(bytes.readUInt32LE(0x30), this.#fat, this.#sectorSize, (n) => this.#sector(n));
    this.#entries = [];
    for (let at = 0; at + 128 <= directory.length; at += 128) this.#entries.push(entryAt(directory, at));
    const root = this.#entries[0];
    if (root?.type !== 5) throw new Error('the OLE root directory entry is missing');
    const miniFatStart = bytes.readUInt32LE(0x3c);
    this.#miniFat =
      miniFatStart >= END_OF_CHAIN
        ? new Uint32Array(0)
        : toWords(this.#chain(miniFatStart, this.#fat, this.#sectorSize, (n) => this.#sector(n)));
  }

  /** The names of the streams and storages at the top level. */
  get names(): string[] {
    return this.#rootChildren().map((e) => e.name);
  }

  /** A top-level stream's bytes, or null when there is none by that name (case-insensitive). */
  stream(name: string): Buffer | null {
    const wanted = name.toLowerCase();
    const entry = this.#rootChildren().find((e) => e.type === 2 && e.name.toLowerCase() === wanted);
    if (!entry) return null;
    if (entry.size > this.#bytes.length * 2) throw new Error(`the OLE stream ${name} claims a size beyond the file`);
    if (entry.size < this.#miniCutoff) {
      this.#miniStream ??= this.#loadMiniStream();
      const mini = this.#miniStream;
      const data = this.#chain(entry.start, this.#miniFat, this.#miniSectorSize, (n) =>
        mini.subarray(n * this.#miniSectorSize, (n + 1) * this.#miniSectorSize),
      );
      return data.subarray(0, entry.size);
    }
    const data = this.#chain(entry.start, this.#fat, this.#sectorSize, (n) => this.#sector(n));
    if (data.length < entry.size) throw new Error(`the OLE stream ${name} is cut short`);
    return data.subarray(0, entry.size);
  }

  #loadMiniStream(): Buffer {
    const root = this.#entries[0] as DirectoryEntry;
    if (root.start >= END_OF_CHAIN) return Buffer.alloc(0);
    return this.#chain(root.start, this.#fat, this.#sectorSize, (n) => this.#sector(n)).subarray(0, root.size);
  }

  #rootChildren(): DirectoryEntry[] {
    const out: DirectoryEntry[] = [];
    const seen = new Set<number>();
    const stack = [(this.#entries[0] as DirectoryEntry).child];
    while (stack.length > 0) {
      const id = stack.pop() as number;
      if (id === NO_STREAM || seen.has(id)) continue;
      const entry = this.#entries[id];
      if (!entry) continue;
      seen.add(id);
      out.push(entry);
      stack.push(entry.left, entry.right);
    }
    return out;
  }

  #sector(n: number): Buffer {
    const start = (n + 1) * this.#sectorSize;
    if (start >= this.#bytes.length) throw new Error('an OLE sector lies beyond the end of the file');
    return this.#bytes.subarray(start, start + this.#sectorSize);
  }

  /** The FAT: from the 109 header slots, then the DIFAT sector chain. */
  #readFat(fatSectors: number, difatStart: number, difatCount: number): Uint32Array {
    const maxSectors = Math.ceil(this.#bytes.length / this.#sectorSize);
    if (fatSectors > maxSectors) throw new Error('the OLE allocation table is larger than the file');
    const locations: number[] = [];
    for (let i = 0; i < 109 && locations.length < fatSectors; i++)
      locations.push(this.#bytes.readUInt32LE(0x4c + i * 4));
    let next = difatStart;
    const seen = new Set<number>();
    for (let i = 0; i < difatCount && locations.length < fatSectors && next < END_OF_CHAIN; i++) {
      if (seen.has(next)) throw new Error('the OLE allocation table loops');
      seen.add(next);
      const sector = this.#sector(next);
      const perSector = this.#sectorSize / 4 - 1;
      for (let j = 0; j < perSector && locations.length < fatSectors; j++) locations.push(sector.readUInt32LE(j * 4));
      next = sector.readUInt32LE(perSector * 4);
    }
    return toWords(Buffer.concat(locations.map((n) => this.#sector(n))));
  }

  /** Follows an allocation chain, refusing loops and links outside the table. */
  #chain(start: number, table: Uint32Array, unit: number, read: (n: number) => Buffer): Buffer {
    const parts: Buffer[] = [];
    const seen = new Uint8Array(table.length);
    let n = start;
    while (n !== END_OF_CHAIN && n !== FREE) {
      if (n >= table.length) throw new Error('an OLE chain points outside its table');
      if (seen[n]) throw new Error('an OLE chain loops');
      seen[n] = 1;
      const part = read(n);
      // The last sector of a file may be cut short; a stream's length is checked against its size after.
      if (part.length === 0 || (part.length < unit && table[n] !== END_OF_CHAIN))
        throw new Error('an OLE chain runs beyond the end of the file');
      parts.push(part);
      n = table[n] as number;
    }
    return Buffer.concat(parts);
  }
}

function entryAt(directory: Buffer, at: number): DirectoryEntry {
  const nameLength = Math.min(64, directory.readUInt16LE(at + 64));
  return {
    name: directory.toString('utf16le', at, at + Math.max(0, nameLength - 2)),
    type: directory[at + 66] as number,
    left: directory.readUInt32LE(at + 68),
    right: directory.readUInt32LE(at + 72),
    child: directory.readUInt32LE(at + 76),
    start: directory.readUInt32LE(at + 116),
    // Version 3 files (512-byte sectors) may leave garbage in the high half.
    size: directory.readUInt32LE(at + 120),
  };
}

function toWords(buffer: Buffer): Uint32Array {
  const words = new Uint32Array(Math.floor(buffer.length / 4));
  for (let i = 0; i < words.length; i++) words[i] = buffer.readUInt32LE(i * 4);
  return words;
}

/** What the "\u0005SummaryInformation" property set says: title, author, dates, counts. */
export interface SummaryInformation {
  title?: string;
  subject?: string;
  author?: string;
  created?: string;
  modified?: string;
  pages?: number;
  words?: number;
}

/** Reads the summary information of a compound file; empty when it is absent or unreadable. */
export function summaryInformation(file: CompoundFile): SummaryInformation {
  try {
    const stream = file.stream('\u0005SummaryInformation');
    if (!stream || stream.length < 48) return {};
    const setAt = stream.readUInt32LE(44);
    const count = Math.min(stream.readUInt32LE(setAt + 4), 256);
    const props = new Map<number, number>();
    for (let i = 0; i < count; i++)
      props.set(stream.readUInt32LE(setAt + 8 + i * 8), setAt + stream.readUInt32LE(setAt + 12 + i * 8));
    const codepageAt = props.get(1);
    const codepage =
      codepageAt !== undefined && stream.readUInt16LE(codepageAt) === 0x02 ? stream.readUInt16LE(codepageAt + 4) : 1252;
    const value = (id: number): string | number | Date | undefined => {
      const at = props.get(id);
      if (at === undefined || at + 8 > stream.length) return undefined;
      const type = stream.readUInt16LE(at);
      if (type === 0x1e)
        return decode(stream.subarray(at + 8, at + 8 + Math.min(stream.readUInt32LE(at + 4), stream.length)), codepage);
      if (type === 0x1f)
        return stream.toString('utf16le', at + 8, Math.min(stream.length, at + 8 + stream.readUInt32LE(at + 4) * 2));
      if (type === 0x03) return stream.readInt32LE(at + 4);
      if (type === 0x40) return new Date(Number(stream.readBigUInt64LE(at + 4) / 10_000n) - 11_644_473_600_000);
      return undefined;
    };
    const text = (id: number) => {
      const v = value(id);
      return typeof v === 'string' ? v.replace(/\0+$/, '').trim() || undefined : undefined;
    };
    const number = (id: number) => {
      const v = value(id);
      return typeof v === 'number' && v > 0 ? v : undefined;
    };
    const date = (id: number) => {
      const v = value(id);
      return v instanceof Date ? isoDate(v) : undefined;
    };
    return {
      title: text(2),
      subject: text(3),
      author: text(4),
      created: date(12),
      modified: date(13),
      pages: number(14),
      words: number(15),
    };
  } catch {
    // Metadata is a bonus: a damaged property set does not fail the extraction.
    return {};
  }
}

/** 8-bit text in a Windows code page (1252 when the page is unknown). */
export function decode(bytes: Uint8Array, codepage: number): string {
  const labels: Record<number, string> = {
    65001: 'utf-8',
    1200: 'utf-16le',
    10000: 'macintosh',
    932: 'shift_jis',
    936: 'gbk',
    949: 'euc-kr',
    950: 'big5',
  };
  const label = labels[codepage] ?? (codepage >= 874 && codepage <= 1258 ? `windows-${codepage}` : 'windows-1252');
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    return new TextDecoder('windows-1252').decode(bytes);
  }
}
