import type { Segment } from '../segmentation.ts';
import { type AmountMention, findAmounts } from './amounts.ts';

// The period a sum of money is given for ("GBP 4,250 per month", "a monthly rental of …", a column
// "Annual price (SEK)") and the period a question asks it for ("what does it cost per year?"), so
// that the chat answer prefers a sum of the asked period and, when the document gives only another
// one, states the sum for the asked period worked out from it (12 × the monthly sum), next to the
// quoted sentence that gives the components.

/** A period a sum is given for. Days are left out: working days or calendar days, a year of them is no plain product. */
export type Period = 'week' | 'month' | 'quarter' | 'year';

const PER_YEAR: Record<Period, number> = { week: 52, month: 12, quarter: 4, year: 1 };
const PHRASE: Record<Period, string> = { week: 'a week', month: 'a month', quarter: 'a quarter', year: 'a year' };

const UNIT: Record<string, Period> = {
  week: 'week',
  weeks: 'week',
  wk: 'week',
  month: 'month',
  months: 'month',
  mo: 'month',
  pcm: 'month',
  quarter: 'quarter',
  year: 'year',
  annum: 'year',
  yr: 'year',
  pa: 'year',
};
const ADJECTIVE: Record<string, Period> = {
  weekly: 'week',
  monthly: 'month',
  quarterly: 'quarter',
  yearly: 'year',
  annual: 'year',
  annually: 'year',
};

/** "per year", "a month", "each quarter", "annually", "over a year": the period a question asks a sum for. */
const ASKED =
  /\b(?:per|a|an|each|every|one|in a|over a|over one|for a|for one|for the whole|for the full)\s+(?:calendar\s+)?(year|annum|month|quarter|week)\b|\b(yearly|annual|annually|monthly|quarterly|weekly)\b/i;

/** The period a question asks a sum for, if it names one. */
export function askedPeriod(question: string): Period | null {
  const m = ASKED.exec(question);
  if (!m) return null;
  return m[1] ? (UNIT[m[1].toLowerCase()] ?? null) : (ADJECTIVE[m[2]!.toLowerCase()] ?? null);
}

/**
 * After a sum: "per month", "a month", "/month", "pcm", "p.a.", with a bracket or "plus VAT"
 * between ("GBP 4,250 per month (excluding VAT)" reads the other way round too). A sum "per user
 * per month" is a rate of something else first: no period of its own.
 */
const AFTER =
  /^\s*(?:\([^)]{0,40}\)\s*)?(?:(?:\+|plus|excl\.?|excluding|incl\.?|including|exclusive of|inclusive of)\s+(?:VAT|GST|tax)\s*)?(?:,\s*)?(?:(?:per|a|an|each|every)\s+(?:calendar\s+)?(week|month|quarter|year|annum)\b|\/\s*(week|wk|month|mo|quarter|year|yr)\b|(pcm|p\.\s?a\.|pa)\b)/i;
/** Before a sum: "a monthly rental of", "annual fee:", "quarterly instalments of". */
const BEFORE =
  /\b(weekly|monthly|quarterly|yearly|annual|annually)\b(?:\s+[\p{L}-]+){0,3}\s*(?:of|:|at|is|was|will be)?\s*$/iu;

/** A sum of a segment and the period it is given for (null: none said). */
export interface PeriodAmount {
  mention: AmountMention;
  period: Period | null;
}

/** The sums of a segment with the period each is given for, read after it, before it, or from its label or column. */
export function periodAmounts(segment: Pick<Segment, 'text' | 'label' | 'header'>): PeriodAmount[] {
  const text = segment.text;
  const title = [segment.label ?? '', ...(segment.header ?? [])].join(' ');
  const fromTitle = periodWord(title);
  return findAmounts(text).map((mention) => {
    const after = AFTER.exec(text.slice(mention.end));
    if (after) {
      const unit = (after[1] ?? after[2] ?? after[3] ?? '').toLowerCase().replace(/[\s.]/g, '');
      return { mention, period: UNIT[unit] ?? null };
    }
    if (/^\s*per\s+(?!(?:week|month|quarter|year|annum)\b)\p{L}/iu.test(text.slice(mention.end)))
      return { mention, period: null };
    const before = BEFORE.exec(text.slice(Math.max(0, mention.start - 50), mention.start));
    if (before) return { mention, period: ADJECTIVE[before[1]!.toLowerCase()] ?? null };
    return { mention, period: fromTitle };
  });
}

function periodWord(text: string): Period | null {
  const m = /\b(weekly|monthly|quarterly|yearly|annual|annually)\b|\bper (week|month|quarter|year|annum)\b/i.exec(text);
  if (!m) return null;
  return m[1] ? (ADJECTIVE[m[1].toLowerCase()] ?? null) : (UNIT[m[2]!.toLowerCase()] ?? null);
}

/** Whether a segment gives a sum for the period asked. */
export function givesPeriod(segment: Pick<Segment, 'text' | 'label' | 'header'>, period: Period): boolean {
  return periodAmounts(segment).some((a) => a.period === period);
}

/**
 * "GBP 51,000 a year (12 × GBP 4,250 a month)": the sum for the asked period worked out from the
 * first sum of the segment given for another period, or null when the segment gives one for the
 * asked period already, or none for any.
 */
export function derivedSum(segment: Pick<Segment, 'text' | 'label' | 'header'>, asked: Period): string | null {
  const amounts = periodAmounts(segment);
  if (amounts.some((a) => a.period === asked)) return null;
  const given = amounts.find((a) => a.period !== null);
  if (!given?.period) return null;
  const factor = PER_YEAR[given.period] / PER_YEAR[asked];
  const value = given.mention.amount * factor;
  const shown = restyle(given.mention.text, value);
  if (!shown) return null;
  const times =
    factor >= 1
      ? `${formatFactor(factor)} × ${given.mention.text.trim()}`
      : `${given.mention.text.trim()} ÷ ${formatFactor(1 / factor)}`;
  return `${shown} ${PHRASE[asked]} (${times} ${PHRASE[given.period]})`;
}

const formatFactor = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));

/**
 * A sum written as the document writes it ("£26" → "£312", "GBP 4,250" → "GBP 51,000", "EUR 2,300.00"
 * → "EUR 27,600.00"): the sign or code kept, thousands grouped with commas, cents kept when written.
 * Null for a sum written with a scale word or in another grouping ("4.5 crore", "1.234,56").
 */
function restyle(written: string, value: number): string | null {
  const m = /^(\D*?)(\d{1,3}(?:,\d{3})*(?:\.\d+)?|\d+(?:\.\d+)?)(\D*)$/.exec(written.trim());
  if (!m) return null;
  const [, before, digits, after] = m;
  if (/\p{L}{3,}/u.test(after!) && !/^\s*[A-Z]{3}$/.test(after!)) return null;
  const decimals = /\.(\d+)$/.exec(digits!)?.[1]?.length ?? 0;
  const rounded = decimals > 0 ? value : Math.round(value * 100) / 100;
  const body = rounded.toLocaleString('en-US', {
    minimumFractionDigits: decimals > 0 ? decimals : Number.isInteger(rounded) ? 0 : 2,
    maximumFractionDigits: decimals > 0 ? decimals : 2,
  });
  return `${before}${body}${after}`;
}
