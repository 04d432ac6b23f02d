import { iso } from '../../lib/clock.ts';
import { ACCEPTED_EXTENSIONS, type FileCategory, fileTypeRuleForExtension } from '../../providers/files/file-types.ts';
import { fold } from './query-syntax.ts';

/**
 * Query understanding for enhanced search (pure): dates, file types and the tenant's tag names
 * written in a query become filters, and are taken out of the text that is searched.
 *
 *   "invoices from March 2026"      → created in March 2026
 *   "contracts in 2025" / "during 2025" → created in 2025
 *   "since 2024" / "after May 2025" / "before 2023" → open ranges
 *   "last year", "this year", "last month", "this month" → relative to now (UTC)
 *   "pdf", "spreadsheets", "word documents", "images", "presentations", "audio", "videos" → file types
 *   an existing tag's name ("finance") → that tag
 */

export interface UnderstoodFilter {
  type: 'date_range' | 'file_type' | 'tag';
  /** The words of the query it came from. */
  text: string;
  /** date_range: ISO instants; file_type: extensions; tag: the tag's name. */
  value: { start?: string; end?: string } | string[] | string;
}

export interface Understanding {
  /** The query without the words that became filters (the whole query when nothing else is left). */
  text: string;
  createdFrom?: number;
  createdTo?: number;
  fileTypes?: string[];
  tagNames?: string[];
  understood: UnderstoodFilter[];
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const MONTH = `(${MONTHS.map((m) => `${m}|${m.slice(0, 3)}`).join('|')})\\.?`;

/** Words for file types: a category of file-types.ts, or explicit extensions. */
const TYPE_WORDS: [RegExp, FileCategory | string[]][] = [
  [/\b(markdown( files?| documents?| notes?)?|md files?)\b/, ['md']],
  [/\b(csv files?|csvs?)\b/, ['csv']],
  [/\b(pdf (files?|documents?)|pdfs?)\b/, 'pdf'],
  [/\b(spreadsheets?|excel (files?|sheets?)|excel|workbooks?|xlsx|xls)\b/, 'spreadsheet'],
  [/\b(word (documents?|files?|docs?)|docx)\b/, 'word'],
  [/\b(images?|photos?|pictures?|scans?|screenshots?|pngs?|jpe?gs?)\b/, 'image'],
  [/\b(presentations?|slide ?decks?|slides|powerpoints?|pptx)\b/, 'powerpoint'],
  [/\b(audio( files?)?|recordings?|voice memos?|mp3s?)\b/, 'audio'],
  [/\b(videos?|movies?|mp4s?)\b/, 'video'],
  [/\b(text files?|txt files?|plain text)\b/, ['txt']],
];

/** Reads filters out of a query (`now` resolves relative dates; `tagNames` are the tenant's tags). */
export function understandQuery(query: string, options: { now: number; tagNames: readonly string[] }): Understanding {
  let text = ` ${fold(query).replace(/\s+/g, ' ')} `;
  const understood: UnderstoodFilter[] = [];
  const out: Understanding = { text: query, understood };
  const take = (re: RegExp): RegExpExecArray | null => {
    const m = re.exec(text);
    if (m) text = `${text.slice(0, m.index)} ${text.slice(m.index + m[0].length)}`;
    return m;
  };
  const setRange = (from: number | undefined, to: number | undefined, words: string) => {
    if (out.createdFrom !== undefined || out.createdTo !== undefined) return;
    if (from !== undefined) out.createdFrom = from;
    if (to !== undefined) out.createdTo = to;
    understood.push({
      type: 'date_range',
      text: words.trim(),
      value: { ...(from !== undefined ? { start: iso(from) } : {}), ...(to !== undefined ? { end: iso(to) } : {}) },
    });
  };

  // Dates: the most specific patterns first.
  let m = take(new RegExp(`\\bbetween (?:${MONTH} )?(\\d{4}) and (?:${MONTH} )?(\\d{4})\\b`));
  if (m) setRange(periodStart(m[2]!, m[1]), periodEnd(m[4]!, m[3]), m[0]);
  m = take(new RegExp(`\\b(from|in|during|of) ${MONTH} (\\d{4})\\b`));
  if (m) setRange(periodStart(m[3]!, m[2]), periodEnd(m[3]!, m[2]), m[0]);
  m = take(new RegExp(`\\b(since|after) (?:${MONTH} )?(\\d{4})\\b`));
  if (m) setRange(m[1] === 'after' ? periodEnd(m[3]!, m[2]) + 1 : periodStart(m[3]!, m[2]), undefined, m[0]);
  m = take(new RegExp(`\\b(before|until) (?:${MONTH} )?(\\d{4})\\b`));
  if (m) setRange(undefined, m[1] === 'until' ? periodEnd(m[3]!, m[2]) : periodStart(m[3]!, m[2]) - 1, m[0]);
  m = take(/\b(from|in|during|of) (\d{4})\b/);
  if (m && isYear(m[2]!)) setRange(periodStart(m[2]!), periodEnd(m[2]!), m[0]);
  m = take(/\b(last|this|past) (year|month)\b/);
  if (m) {
    const now = new Date(options.now);
    const year = now.getUTCFullYear();
    const month = now.getUTCMonth();
    if (m[2] === 'year') {
      const y = m[1] === 'this' ? year : year - 1;
      setRange(Date.UTC(y, 0, 1), m[1] === 'past' ? options.now : Date.UTC(y + 1, 0, 1) - 1, m[0]);
    } else {
      const start = m[1] === 'this' ? Date.UTC(year, month, 1) : Date.UTC(year, month - 1, 1);
      setRange(start, m[1] === 'this' ? options.now : Date.UTC(year, month, 1) - 1, m[0]);
    }
  }

  const fileTypes: string[] = [];
  for (const [re, category] of TYPE_WORDS) {
    const found = take(re);
    if (!found) continue;
    const extensions = Array.isArray(category)
      ? category
      : ACCEPTED_EXTENSIONS.filter((e) => fileTypeRuleForExtension(e)?.category === category);
    fileTypes.push(...extensions);
    understood.push({ type: 'file_type', text: found[0].trim(), value: extensions });
  }
  if (fileTypes.length > 0) out.fileTypes = fileTypes;

  const tagNames: string[] = [];
  // Longest names first, so "project alpha" wins over "alpha".
  for (const name of [...options.tagNames].sort((a, b) => b.length - a.length)) {
    const key = fold(name).trim();
    if (key.length < 2) continue;
    const found = take(new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(key)}(?![\\p{L}\\p{N}])`, 'u'));
    if (!found) continue;
    tagNames.push(name);
    understood.push({ type: 'tag', text: found[0].trim(), value: name });
  }
  if (tagNames.length > 0) out.tagNames = tagNames;

  const rest = text.replace(/\s+/g, ' ').trim();
  out.text = understood.length > 0 && /[\p{L}\p{N}]/u.test(rest) ? rest : query.trim();
  return out;
}

function isYear(y: string): boolean {
  const n = Number(y);
  return n >= 1900 && n <= 2200;
}

function monthIndex(name: string | undefined): number | null {
  if (!name) return null;
  const i = MONTHS.findIndex((m) => m.startsWith(name.replace('.', '').slice(0, 3)));
  return i >= 0 ? i : null;
}

/** First instant of a year, or of a month of it. */
function periodStart(year: string, month?: string): number {
  const m = monthIndex(month);
  return Date.UTC(Number(year), m ?? 0, 1);
}

/** Last millisecond of a year, or of a month of it. */
function periodEnd(year: string, month?: string): number {
  const m = monthIndex(month);
  return m === null ? Date.UTC(Number(year) + 1, 0, 1) - 1 : Date.UTC(Number(year), m + 1, 1) - 1;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
