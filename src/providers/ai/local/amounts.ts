// Money amounts in a text, normalised to "USD 12,500.00": an ISO 4217 code, a space, the value
// with thousands separators and two decimals. Needs a currency sign, code or word next to the
// number; a bare number is not money (tables with a currency in the column header are handled
// by the entity extractor, which knows the columns).

/** An amount found in a text and where. */
export interface AmountMention {
  value: string;
  start: number;
  end: number;
}

const SYMBOLS: Record<string, string> = {
  us$: 'USD', 'u.s.$': 'USD', $: 'USD', c$: 'CAD', ca$: 'CAD', a$: 'AUD', au$: 'AUD', nz$: 'NZD', hk$: 'HKD', s$: 'SGD',
  r$: 'BRL', mx$: 'MXN', '€': 'EUR', '£': 'GBP', '¥': 'JPY', '₹': 'INR', '₩': 'KRW', '₽': 'RUB', '₺': 'TRY', '₪': 'ILS', fr: 'CHF',
};
/** ISO 4217 codes we recognise next to a number. */
export const CURRENCY_CODES: ReadonlySet<string> = new Set(
  'USD EUR GBP JPY CHF CAD AUD NZD CNY HKD SGD INR SEK NOK DKK PLN CZK HUF BRL MXN ZAR KRW TRY RUB AED SAR ILS'.split(' '),
);
const WORDS: Record<string, string> = {
  dollar: 'USD', dollars: 'USD', euro: 'EUR', euros: 'EUR', pound: 'GBP', pounds: 'GBP', 'pounds sterling': 'GBP',
  yen: 'JPY', 'swiss francs': 'CHF', francs: 'CHF', rupees: 'INR',
};
const SCALES: Record<string, number> = {
  thousand: 1e3, k: 1e3, million: 1e6, mn: 1e6, mio: 1e6, m: 1e6, billion: 1e9, bn: 1e9, b: 1e9, trillion: 1e12,
};

const CODE = [...CURRENCY_CODES].join('|');
const SYMBOL = '(?:US\\$|U\\.S\\.\\$|CA\\$|C\\$|AU\\$|A\\$|NZ\\$|HK\\$|S\\$|R\\$|MX\\$|\\$|€|£|¥|₹|₩|₽|₺|₪)';
const NUMBER = '(\\d{1,3}(?:[,.\\u00a0\\u202f ]\\d{3})+(?:[.,]\\d{1,2})?|\\d+(?:[.,]\\d{1,2})?)';
const SCALE = '(?:\\s?(thousand|million|billion|trillion|mn|mio|bn|[kmb])\\b)?';
const BEFORE = new RegExp(`(?<![\\p{L}\\d])(${SYMBOL}|(?:${CODE})\\b)\\s?${NUMBER}${SCALE}`, 'giu');
const AFTER = new RegExp(
  `(?<![\\p{L}\\d$€£.,])${NUMBER}${SCALE}\\s?(${SYMBOL.slice(3, -1)}|(?:${CODE})\\b|(?:pounds sterling|swiss francs|dollars?|euros?|pounds?|yen|francs|rupees)\\b)`,
  'giu',
);

const NUMBER_WORDS: Record<string, number> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11,
  twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
  twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90, a: 1,
};
const SPELLED = new RegExp(
  `\\b((?:(?:${Object.keys(NUMBER_WORDS).join('|')}|hundred|thousand|million|billion|and)[\\s-]+)+)(dollars|euros|pounds|yen|francs)\\b`,
  'gi',
);

const FORMAT = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** "USD 12,500.00". */
export const formatAmount = (code: string, value: number) => `${code} ${FORMAT.format(value)}`;

/** Every amount in the text, in order of appearance (duplicates included). */
export function findAmounts(text: string): AmountMention[] {
  const found: AmountMention[] = [];
  const free = (start: number, end: number) => !found.some((f) => start < f.end && end > f.start);
  for (const m of text.matchAll(BEFORE)) {
    const code = currencyOf(m[1]!);
    const value = parseNumber(m[2]!, m[3]);
    if (code && value !== null) found.push({ value: formatAmount(code, value), start: m.index, end: m.index + m[0].length });
  }
  for (const m of text.matchAll(AFTER)) {
    const code = currencyOf(m[3]!);
    const value = parseNumber(m[1]!, m[2]);
    if (code && value !== null && free(m.index, m.index + m[0].length)) {
      found.push({ value: formatAmount(code, value), start: m.index, end: m.index + m[0].length });
    }
  }
  for (const m of text.matchAll(SPELLED)) {
    const value = parseNumberWords(m[1]!);
    const code = WORDS[m[2]!.toLowerCase()];
    if (code && value !== null && value > 0 && free(m.index, m.index + m[0].length)) {
      found.push({ value: formatAmount(code, value), start: m.index, end: m.index + m[0].length });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

function currencyOf(raw: string): string | null {
  const lower = raw.toLowerCase().replace(/\s+/g, ' ');
  if (CURRENCY_CODES.has(raw.toUpperCase())) return raw.toUpperCase();
  return SYMBOLS[lower] ?? WORDS[lower] ?? null;
}

/**
 * A written number: "12,500.00", "12.500,00" (European), "9 750,00", with an optional scale word
 * ("2.4 million", "1.8M"). Three digits after a lone dot or comma are thousands.
 */
export function parseNumber(raw: string, scale?: string): number | null {
  let s = raw.replace(/[\u00a0\u202f ]/g, ',');
  const lastDot = s.lastIndexOf('.');
  const lastComma = s.lastIndexOf(',');
  let decimalSep: string | null = null;
  if (lastDot >= 0 && lastComma >= 0) decimalSep = lastDot > lastComma ? '.' : ',';
  else if (lastDot >= 0 || lastComma >= 0) {
    const sep = lastDot >= 0 ? '.' : ',';
    const after = s.length - Math.max(lastDot, lastComma) - 1;
    const groups = s.split(sep).length - 1;
    decimalSep = after === 3 && (groups > 1 || !scale) ? null : groups === 1 ? sep : null;
  }
  s = decimalSep ? s.split(decimalSep).map((part, i, parts) => (i === parts.length - 1 ? part : part.replace(/[.,]/g, ''))).join('.') : s.replace(/[.,]/g, '');
  const value = Number(s);
  if (!Number.isFinite(value)) return null;
  const factor = scale ? SCALES[scale.toLowerCase()] : 1;
  return factor ? Math.round(value * factor * 100) / 100 : null;
}

/** "sixty thousand" → 60000, "two hundred and five" → 205. */
function parseNumberWords(phrase: string): number | null {
  let total = 0;
  let current = 0;
  let any = false;
  for (const word of phrase.toLowerCase().split(/[\s-]+/).filter(Boolean)) {
    if (word === 'and') continue;
    if (word in NUMBER_WORDS) {
      current += NUMBER_WORDS[word]!;
      any = true;
    } else if (word === 'hundred') current = (current || 1) * 100;
    else if (word === 'thousand' || word === 'million' || word === 'billion') {
      total += (current || 1) * SCALES[word]!;
      current = 0;
      any = true;
    } else return null;
  }
  return any ? total + current : null;
}

/** One amount as an AI model may answer it ("$12.5k", "12,500 EUR", "USD 12500"), normalised; null if not money. */
export function normalizeAmount(raw: string): string | null {
  const [first] = findAmounts(raw.trim());
  return first ? first.value : null;
}
