// Calendar dates written in a text, normalised to ISO 8601 (YYYY-MM-DD).
//
// Explicit forms only: "March 3, 2026", "3 March 2026", "Tuesday the tenth of February",
// "2026-03-03", "03/03/2026", also when a line wrap splits them ("15\nJuly 2025"). Numeric dates
// are read day-first or month-first by the document's locale (its own unambiguous dates first,
// then currency, country, address: locale.ts); an ambiguous one keeps the other reading as an
// alternative. A date without a year takes it from the document's own date (a header or "Date:"
// line), else the nearest full date, else the nearest year written alone ("FY 2025"), and only
// then the reference (upload) date; "until/by/before December 31" looks forward from it.
// Relative phrases ("next Friday", "yesterday"), months ("January 2026") and quarters are not
// calendar days and are left out on purpose. compromise-dates parses all of these too, but it
// cost 6–25 ms a sentence here, and it reads "until December 31" as a range starting today.

import { detectLocale, type Locale } from './locale.ts';

/** A date found in a text and where. */
export interface DateMention {
  iso: string;
  start: number;
  end: number;
  /** As written. */
  text: string;
  /** How sure the reading is, in [0, 1]. */
  confidence: number;
  /** Other days the text could mean ("03/04/2025" month-first), when it is ambiguous. */
  alternatives?: string[];
}

const ENGLISH_MONTHS: Record<string, number> = {
  january: 1,
  jan: 1,
  february: 2,
  feb: 2,
  march: 3,
  mar: 3,
  april: 4,
  apr: 4,
  may: 5,
  june: 6,
  jun: 6,
  july: 7,
  jul: 7,
  august: 8,
  aug: 8,
  september: 9,
  sep: 9,
  sept: 9,
  october: 10,
  oct: 10,
  november: 11,
  nov: 11,
  december: 12,
  dec: 12,
};
const MONTHS_BEFORE_DAY: Record<string, number> = {
  ...ENGLISH_MONTHS,
  // Spanish, Portuguese, French, Italian and German month names ("5 de março de 2024", "3 juillet").
  ...Object.fromEntries(
    [
      'enero janeiro janvier gennaio januar',
      'febrero fevereiro février fevrier febbraio februar',
      'marzo março mars märz',
      'abril avril aprile',
      'mayo maio mai maggio',
      'junio junho juin giugno juni',
      'julio julho juillet luglio juli',
      'agosto août aout',
      'septiembre setiembre setembro septembre settembre',
      'octubre outubro octobre ottobre oktober',
      'noviembre novembro novembre',
      'diciembre dezembro décembre decembre dicembre dezember',
    ].flatMap((names, i) => names.split(' ').map((name) => [name, i + 1])),
  ),
};
const MONTHS: Record<string, number> = {
  ...MONTHS_BEFORE_DAY,
  // Dutch, Scandinavian, Polish (the genitive a date uses: "1 lipca 2025"), Hungarian, Turkish and
  // Indonesian month names; those shared with the languages above are listed once.
  ...Object.fromEntries(
    [
      'januari januar stycznia január ocak',
      'februari februar lutego február şubat subat',
      'maart marca március mart maret',
      'kwietnia április nisan',
      'mei maj maja május mayıs mayis',
      'juni czerwca június haziran',
      'juli lipca július temmuz',
      'augustus augusti sierpnia augusztus ağustos agustus',
      'september september września szeptember eylül eylul',
      'oktober października október ekim',
      'listopada kasım kasim',
      'desember grudnia aralık aralik',
    ].flatMap((names, i) => names.split(' ').map((name) => [name, i + 1])),
  ),
};
/** Month names of languages that write them in lower case and that are no English word. */
const LOWER_CASE_MONTHS = new Set(
  Object.keys(MONTHS).filter((name) => !/^(?:[a-z]{3,4}|mars|mai|marzo)$/.test(name) && !(name in ENGLISH_MONTHS)),
);
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const UNITS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth'];
const TEENS = [
  'tenth',
  'eleventh',
  'twelfth',
  'thirteenth',
  'fourteenth',
  'fifteenth',
  'sixteenth',
  'seventeenth',
  'eighteenth',
  'nineteenth',
];

/** "tenth" → 10, "twenty-third" → 23, "thirty first" → 31. */
const ORDINAL_WORDS: Record<string, number> = (() => {
  const out: Record<string, number> = {};
  UNITS.forEach((w, i) => {
    out[w] = i + 1;
  });
  TEENS.forEach((w, i) => {
    out[w] = i + 10;
  });
  out['twentieth'] = 20;
  out['thirtieth'] = 30;
  for (const [tens, base] of [
    ['twenty', 20],
    ['thirty', 30],
  ] as const) {
    UNITS.forEach((w, i) => {
      if (base + i + 1 > 31) return;
      out[`${tens}-${w}`] = base + i + 1;
      out[`${tens} ${w}`] = base + i + 1;
    });
  }
  return out;
})();

// A month name is a whole word: "Mar" of "Marlborough" and "Jul" of "Julia" are not months.
const MONTH = `(${Object.keys(MONTHS)
  .sort((a, b) => b.length - a.length)
  .join('|')})(?![\\p{L}])\\.?`;
// Month names written before the day ("March 3"): English and the Romance languages; the others
// write the day first, and a shorter alternation keeps the month-first pattern cheap.
const MONTH_FIRST_NAME = `(${Object.keys(MONTHS_BEFORE_DAY)
  .sort((a, b) => b.length - a.length)
  .join('|')})(?![\\p{L}])\\.?`;
const ORDINAL = `(${Object.keys(ORDINAL_WORDS)
  .sort((a, b) => b.length - a.length)
  .join('|')})`;
// "3." of "3. März 2025" and "28. august 2025": a day written with a dot, as German and Norwegian do.
const DAY = `(?:(\\d{1,2})(?:st|nd|rd|th|\\.(?=[^\\S\\n]+\\p{L}))?(?![\\d:]|\\.\\d)|${ORDINAL})`;
const YEAR = `((?:19|20)\\d{2})(?!\\d)`;
const WEEKDAY = `(?:(${WEEKDAYS.join('|')}|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\\.?,?[^\\S\\n]+)?`;

// Each pattern's groups are named by position in `read` below.
// Spaces within a line, or one line break where a wrap split the date ("15\nJuly 2025").
const SP = '(?:[^\\S\\n]+|[^\\S\\n]*\\n[^\\S\\n]*)';
const SP0 = '[^\\S\\n]*';
const DAY_MONTH = new RegExp(
  `\\b${WEEKDAY}(?:the${SP})?${DAY}(?:(?:${SP0}[-–]${SP0}|${SP}(?:to|until|till|and|&)${SP}|,${SP0})(\\d{1,2})(?:st|nd|rd|th)?(?!\\d))?${SP}(?:(?:day${SP})?(?:of|de)${SP})?${MONTH}(?:(?:,?${SP}|${SP}de${SP})${YEAR})?`,
  'giu',
);
const MONTH_DAY = new RegExp(
  `\\b${WEEKDAY}${MONTH_FIRST_NAME}${SP}(?:the${SP})?${DAY}(?:${SP0}[-–]${SP0}(\\d{1,2})(?!\\d))?(?:,?${SP}${YEAR})?`,
  'giu',
);
const ISO = /(?<![\d-])((?:19|20)\d{2})([-/.])(\d{1,2})\2(\d{1,2})(?![\d-])/g;
const NUMERIC = /(?<![\d/.-])(\d{1,2})([/.-])(\d{1,2})\2((?:19|20)\d{2}|\d{2})(?![\d/-]|\.\d)/g;
// "5-Jun-2025", "05/Jun/25": a day, a month's short name and a year joined by hyphens or slashes.
const DAY_MON_YEAR = new RegExp(
  `(?<![\\p{L}\\d])(\\d{1,2})([-/])${MONTH.replace('\\.?', '')}\\2((?:19|20)?\\d{2})(?![\\d\\p{L}])`,
  'giu',
);
// Written year first: "2025年4月30日", "2025년 3월 5일", "2025. március 14." (Hungarian); "4月30日" without the year.
const CJK = /(?:((?:19|20)\d{2})\s*[年년]\s*)?(\d{1,2})\s*[月월]\s*(\d{1,2})\s*[日일号]/gu;
const YEAR_MONTH_NAME = new RegExp(`(?<![\\d.])((?:19|20)\\d{2})\\.${SP0}${MONTH}${SP0}(\\d{1,2})\\.?(?!\\d)`, 'giu');
// "ngày 15 tháng 4 năm 2025", "15 tháng 4, 2025": Vietnamese day, month number and year.
const VIETNAMESE = /(?:ngày\s+)?(?<!\d)(\d{1,2})\s+tháng\s+(\d{1,2})(?:(?:\s+năm|,)\s+((?:19|20)\d{2}))?(?!\d)/giu;
// "Wednesday 05/21", "your e-mail of 22/05": a numeric day and month after a weekday or a preposition.
// Slashes only: "of 6.2 gigawatts" and "by 4.5%" are numbers.
// The cue is matched, not looked behind for (a look-behind would be tried at every position).
const NUMERIC_NO_YEAR = new RegExp(
  `\\b(on|of|by|until|before|from|dated|due|${WEEKDAYS.join('|')}|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\\.?,?[^\\S\\n]+(\\d{1,2})(/)(\\d{1,2})(?![\\d/%]|[.,]\\d)`,
  'giu',
);
const FORWARD_CUES =
  /\b(?:until|till|by|before|due|through|thru|deadline|expires?|expiry|no later than|on or before)\s+(?:\w+,?\s+)?$/i;

/** Options of `findDates`. */
export interface DateOptions {
  /** The upload date, say: the last resort for a date without a year. */
  referenceDate?: Date;
  /** The document's locale cues (detected from the text when not given). */
  locale?: Locale;
}

type PartialDate = { month: number; day: number; weekday: number | null; forward: boolean };
type Found = Omit<DateMention, 'text'> & { partial?: PartialDate };

/** Every calendar date in the text, in order of appearance (duplicates included). */
export function findDates(text: string, options: DateOptions = {}): DateMention[] {
  const found: Found[] = [];
  const taken: [number, number][] = [];
  const free = (start: number, end: number) => !taken.some(([s, e]) => start < e && end > s);
  const take = (start: number, end: number) => taken.push([start, end]);

  for (const m of text.matchAll(ISO)) {
    const iso = toIso(Number(m[1]), Number(m[3]), Number(m[4]));
    if (iso) add(m.index, m[0].length, iso, 0.97);
  }
  let locale = options.locale;
  for (const m of text.matchAll(NUMERIC)) {
    if (!free(m.index, m.index + m[0].length)) continue;
    const a = Number(m[1]);
    const b = Number(m[3]);
    let year = Number(m[4]);
    if (m[4]!.length === 2) year += year < 70 ? 2000 : 1900;
    const dayFirst = toIso(year, b, a);
    const monthFirst = toIso(year, a, b);
    if (!dayFirst || !monthFirst || dayFirst === monthFirst || m[2] === '.') {
      // One reading only (a day past 12, the same both ways) or dotted, which is day-first everywhere.
      const iso = m[2] === '.' ? dayFirst : (dayFirst ?? monthFirst);
      if (iso) add(m.index, m[0].length, iso, m[2] === '.' && monthFirst && dayFirst !== monthFirst ? 0.9 : 0.97);
      continue;
    }
    locale ??= detectLocale(text);
    const readDayFirst = locale.order === 'dmy';
    const [iso, other] = readDayFirst ? [dayFirst, monthFirst] : [monthFirst, dayFirst];
    add(m.index, m[0].length, iso, locale.order ? locale.orderConfidence : 0.5, [other]);
  }
  const readNumericNoYear = (m: RegExpMatchArray): Read | null => {
    const a = Number(m[2]);
    const b = Number(m[4]);
    const weekday =
      m[1]!.length >= 3 && WEEKDAYS.some((w) => w.startsWith(m[1]!.toLowerCase().slice(0, 3))) ? m[1]! : null;
    if (a > 12) return b <= 12 ? { month: b, days: [a], year: null, weekday } : null;
    if (b > 12) return { month: a, days: [b], year: null, weekday };
    locale ??= detectLocale(text);
    if (!locale.order) return null;
    return locale.order === 'dmy'
      ? { month: b, days: [a], year: null, weekday }
      : { month: a, days: [b], year: null, weekday };
  };
  const readers: [RegExp, (m: RegExpMatchArray) => Read | null][] = [
    [CJK, (m) => ({ month: Number(m[2]), days: [Number(m[3])], year: m[1] ? Number(m[1]) : null, weekday: null })],
    [
      YEAR_MONTH_NAME,
      (m) => ({ month: MONTHS[m[2]!.toLowerCase()]!, days: [Number(m[3])], year: Number(m[1]), weekday: null }),
    ],
    [
      VIETNAMESE,
      (m) => ({ month: Number(m[2]), days: [Number(m[1])], year: m[3] ? Number(m[3]) : null, weekday: null }),
    ],
    [DAY_MON_YEAR, readDayMonYear],
    [MONTH_DAY, readMonthDay],
    [DAY_MONTH, readDayMonth],
    [NUMERIC_NO_YEAR, readNumericNoYear],
  ];
  for (const [pattern, reader] of readers) {
    // Scripts and forms most documents never use are looked for only where their marks occur.
    if (pattern === CJK && !/[月월]/.test(text)) continue;
    if (pattern === VIETNAMESE && !/tháng/i.test(text)) continue;
    if (pattern === NUMERIC_NO_YEAR && !/(?<![\d/])\d{1,2}\/\d{1,2}(?![\d/])/.test(text)) continue;
    for (const m of text.matchAll(pattern)) {
      // "on 05/21": the cue word is not part of the date.
      const start =
        pattern === NUMERIC_NO_YEAR ? m.index + m[0].lastIndexOf(m[2]!, m[0].length - m[4]!.length - 1) : m.index;
      const end = m.index + m[0].length;
      if (!free(start, end)) continue;
      const read = reader(m);
      if (!read) continue;
      const weekday = read.weekday
        ? WEEKDAYS.findIndex((w) => w.startsWith(read.weekday!.toLowerCase().slice(0, 3)))
        : -1;
      const forward = FORWARD_CUES.test(text.slice(Math.max(0, start - 30), start));
      for (const day of read.days) {
        if (read.year) {
          const iso = toIso(read.year, read.month, day);
          if (iso) add(start, end - start, iso, 0.97);
        } else {
          found.push({
            iso: '',
            start,
            end,
            confidence: 0,
            partial: { month: read.month, day, weekday: weekday >= 0 ? weekday : null, forward },
          });
          take(start, end);
        }
      }
    }
  }

  found.sort((a, b) => a.start - b.start);
  const anchors = anchorsOf(text, found);
  const out: DateMention[] = [];
  for (const f of found) {
    const written = text.slice(f.start, f.end).replace(/\s+/g, ' ');
    if (!f.partial) {
      out.push({
        iso: f.iso,
        start: f.start,
        end: f.end,
        text: written,
        confidence: f.confidence,
        ...(f.alternatives ? { alternatives: f.alternatives } : {}),
      });
      continue;
    }
    const anchor = anchors.forPosition(f.start) ?? referenceAnchor(options.referenceDate);
    if (!anchor) continue;
    const iso =
      anchor.year !== undefined
        ? toIso(anchor.year, f.partial.month, f.partial.day)
        : resolveYear(f.partial, anchor.date);
    if (iso) out.push({ iso, start: f.start, end: f.end, text: written, confidence: anchor.confidence });
  }
  return out;

  function add(start: number, length: number, iso: string, confidence: number, alternatives?: string[]) {
    found.push({ iso, start, end: start + length, confidence, ...(alternatives ? { alternatives } : {}) });
    take(start, start + length);
  }
}

interface Read {
  month: number;
  days: number[];
  year: number | null;
  weekday: string | null;
}

function readDayMonYear(m: RegExpMatchArray): Read | null {
  const month = MONTHS[m[3]!.toLowerCase()];
  if (!month) return null;
  const year = m[4]!.length === 2 ? 2000 + Number(m[4]) : Number(m[4]);
  return { month, days: [Number(m[1])], year, weekday: null };
}

function readMonthDay(m: RegExpMatchArray): Read | null {
  const month = MONTHS[m[2]!.toLowerCase()]!;
  const day = m[3] ? Number(m[3]) : ORDINAL_WORDS[m[4]!.toLowerCase().replace(/\s+/, ' ')];
  // A month name in lower case without a year is too often a word ("you may 3 times", "march 5 miles").
  if (!day || (/^\p{Ll}/u.test(m[2]!) && !m[6])) return null;
  const days = [day];
  if (m[5]) days.push(Number(m[5]));
  return { month, days, year: m[6] ? Number(m[6]) : null, weekday: m[1] ?? null };
}

function readDayMonth(m: RegExpMatchArray): Read | null {
  const day = m[2] ? Number(m[2]) : ORDINAL_WORDS[m[3]!.toLowerCase().replace(/\s+/, ' ')];
  const month = MONTHS[m[5]!.toLowerCase()]!;
  // "5 may be" is not a date: a lower-case English month needs a year; other languages write
  // their months in lower case ("17 de octubre", "3 juillet").
  if (!day || (/^\p{Ll}/u.test(m[5]!) && !m[6] && !LOWER_CASE_MONTHS.has(m[5]!.toLowerCase()))) return null;
  const days = [day];
  if (m[4]) days.push(Number(m[4]));
  return { month, days, year: m[6] ? Number(m[6]) : null, weekday: m[1] ?? null };
}

/** What a date without a year is read against: a day (the window around it decides the year) or a year. */
interface Anchor {
  date: Date;
  /** A year written alone: the date takes it as it is. */
  year?: number;
  confidence: number;
}

const HEADER_LINES = 12;
const DATE_LABEL = /\b(?:date|dated|issued?|issue date|invoice date|sent|as of)\s*[:.]?\s*$/i;
const LONE_YEAR = /(?<![\d/.,-])(?:FY\s?|fiscal\s|financial\syear\s)?((?:19|20)\d{2})(?![\d/-]|\.\d|,\d)/gi;

/**
 * The document's own date (a full date in its first lines or after a "Date:" label) anchors every
 * year-less date; without one, the nearest full date does, and without any, the nearest year
 * written alone.
 */
function anchorsOf(text: string, found: Found[]) {
  const full = found.filter((f) => !f.partial);
  let headerEnd = 0;
  for (let lines = 0, i = 0; i < text.length && lines < HEADER_LINES; i++) {
    if (text[i] === '\n') {
      if (text.slice(headerEnd, i).trim() !== '') lines++;
      headerEnd = i;
    }
  }
  const own =
    full.find((f) => DATE_LABEL.test(text.slice(Math.max(0, f.start - 40), f.start))) ??
    full.find((f) => f.start < Math.max(headerEnd, 400));
  const years = [...text.matchAll(LONE_YEAR)].map((m) => ({ year: Number(m[1]), at: m.index }));
  const utc = (iso: string) => new Date(`${iso}T00:00:00Z`);
  return {
    forPosition(at: number): Anchor | null {
      if (own) return { date: utc(own.iso), confidence: 0.85 };
      if (full.length > 0) {
        const nearest = full.reduce((best, f) => (Math.abs(f.start - at) < Math.abs(best.start - at) ? f : best));
        return { date: utc(nearest.iso), confidence: 0.8 };
      }
      if (years.length > 0) {
        const nearest = years.reduce((best, y) => (Math.abs(y.at - at) < Math.abs(best.at - at) ? y : best));
        return { date: new Date(Date.UTC(nearest.year, 6, 1)), year: nearest.year, confidence: 0.7 };
      }
      return null;
    },
  };
}

function referenceAnchor(reference: Date | undefined): Anchor | null {
  return reference && !Number.isNaN(reference.getTime()) ? { date: reference, confidence: 0.55 } : null;
}

function resolveYear(
  partial: { month: number; day: number; weekday: number | null; forward: boolean },
  anchor: Date,
): string | null {
  const base = anchor.getUTCFullYear();
  const anchorTime = Date.UTC(base, anchor.getUTCMonth(), anchor.getUTCDate());
  const options = [base - 1, base, base + 1]
    .map((year) => ({ year, iso: toIso(year, partial.month, partial.day) }))
    .filter((o): o is { year: number; iso: string } => o.iso !== null)
    .map((o) => ({ ...o, time: Date.parse(`${o.iso}T00:00:00Z`) }));
  if (partial.weekday !== null) {
    const matching = options.filter((o) => new Date(o.time).getUTCDay() === partial.weekday);
    if (matching.length === 1) return matching[0]!.iso;
  }
  const DAY_MS = 86_400_000;
  const pick = partial.forward
    ? options.find((o) => o.time >= anchorTime - 7 * DAY_MS)
    : options.find((o) => o.time >= anchorTime - 120 * DAY_MS && o.time < anchorTime + 245 * DAY_MS);
  return pick?.iso ?? null;
}

/** "YYYY-MM-DD" when the parts make a real calendar day, else null. */
function toIso(year: number, month: number, day: number): string | null {
  if (!Number.isInteger(year) || month < 1 || month > 12 || day < 1 || day > 31) return null;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCMonth() !== month - 1) return null;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** One date written any of the ways above (as an AI model may answer it), in ISO form; null if it is not a day. */
export function normalizeDate(value: string, referenceDate?: Date): string | null {
  const trimmed = value.trim();
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:T[\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(trimmed);
  if (iso) return toIso(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const [first] = findDates(trimmed, { referenceDate });
  return first && first.end - first.start >= trimmed.replace(/[.,\s]+$/, '').length - 2 ? first.iso : null;
}
