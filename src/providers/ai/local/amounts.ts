// Money amounts in a text: the value, its ISO 4217 code and the text it was read from, plus the
// plain form "USD 12,500.00" (a code, a space, the value with thousands separators and two
// decimals). Needs a currency sign, code or word next to the number; a bare number is not money
// (tables with a currency in the column header are handled by the entity extractor, which knows
// the columns). Western ("1,234,567.89", "1.234.567,89", "1 234 567,89", "1'234'567.89") and
// Indian ("4,50,00,000") grouping, scale words ("2.4 million", "$1.8bn", "₹4.5 crore", "12 lakh")
// and a minus sign written against the amount ("-£1,200.00", "USD -1,200") are read; scale words of
// other languages too ("NOK 2,4 mrd.", "ARS 95 millones", "PLN 1,2 mln", "₺ 3 milyar").

import { formatMoney } from '../ai-provider.ts';

/** An amount found in a text and where. */
export interface AmountMention {
  /** The plain form, "USD 12,500.00". */
  value: string;
  amount: number;
  currency: string;
  /** As written ("₹4.5 crore"). */
  text: string;
  start: number;
  end: number;
}

/** What the signs that several currencies share mean in this document (from its locale cues). */
export interface AmountOptions {
  /** A bare "$": USD unless the document is Canadian, Australian, … */
  dollar?: string;
  /** A bare "¥": JPY unless the document is Chinese. */
  yen?: string;
  /** "kr": only read when the document is Swedish, Norwegian, Danish or Icelandic. */
  krona?: string;
  /** "Rs": INR unless the document is Pakistani, Sri Lankan, Nepali, … (or writes that code). */
  rupee?: string;
  /** "Dh", "dirhams": AED unless the document is Moroccan (or writes MAD). */
  dirham?: string;
  /** "FCFA", "francs CFA": XOF unless the document is from the Central African franc zone (XAF). */
  cfa?: string;
  /** "K": read only where the locale names its kwacha or kina (ZMW, MWK, PGK, MMK); a bare K is a thousand. */
  kwacha?: string;
}

const SYMBOLS: Record<string, string> = {
  us$: 'USD',
  'u.s.$': 'USD',
  nt$: 'TWD',
  nis: 'ILS',
  br: 'ETB',
  c$: 'CAD',
  ca$: 'CAD',
  a$: 'AUD',
  au$: 'AUD',
  nz$: 'NZD',
  hk$: 'HKD',
  s$: 'SGD',
  r$: 'BRL',
  mx$: 'MXN',
  '€': 'EUR',
  '£': 'GBP',
  'cn¥': 'CNY',
  rmb: 'CNY',
  '₹': 'INR',
  rs: 'INR',
  'rs.': 'INR',
  '₩': 'KRW',
  '₽': 'RUB',
  '₺': 'TRY',
  '₪': 'ILS',
  '₦': 'NGN',
  '₱': 'PHP',
  '₵': 'GHS',
  'gh₵': 'GHS',
  'gh¢': 'GHS',
  ksh: 'KES',
  'ksh.': 'KES',
  kshs: 'KES',
  'kshs.': 'KES',
  '฿': 'THB',
  '₫': 'VND',
  r: 'ZAR',
  'fr.': 'CHF',
  'sfr.': 'CHF',
  zł: 'PLN',
  kč: 'CZK',
  '₸': 'KZT',
  tk: 'BDT',
  'tk.': 'BDT',
  '৳': 'BDT',
  rm: 'MYR',
  rp: 'IDR',
  'rp.': 'IDR',
  dh: 'AED',
  dhs: 'AED',
  'dhs.': 'AED',
  's/': 'PEN',
  's/.': 'PEN',
  '₴': 'UAH',
  '₾': 'GEL',
  'e£': 'EGP',
  tsh: 'TZS',
  tshs: 'TZS',
  ush: 'UGX',
  ushs: 'UGX',
  đ: 'VND',
  vnđ: 'VND',
  // Signs and local abbreviations of currencies without an ISO-looking code of their own.
  jd: 'JOD',
  kd: 'KWD',
  bd: 'BHD',
  fcfa: 'XOF',
  cfa: 'XOF',
  lei: 'RON',
  '₮': 'MNT',
  '֏': 'AMD',
  '₼': 'AZN',
  frw: 'RWF',
  rwf: 'RWF',
  fj$: 'FJD',
  u$s: 'USD',
  $u: 'UYU',
  ar: 'MGA',
  '₡': 'CRC',
  '₭': 'LAK',
  '៛': 'KHR',
  '₲': 'PYG',
  kz: 'AOA',
  php: 'PHP',
};

// ISO 4217 codes the runtime knows, less those that are also ordinary capitalised words or
// headings ("ALL 5 rooms", "TOP 10") and the codes of funds and special units.
const NOT_CODES = new Set([
  'ALL',
  'TOP',
  'CUP',
  'MOP',
  'BOB',
  'SOS',
  'XDR',
  'XSU',
  'CUC',
  'ANG',
  'SLL',
  'ZWL',
  'GYD',
  'MDL',
]);
/** ISO 4217 codes recognised next to a number. */
export const CURRENCY_CODES: ReadonlySet<string> = new Set(
  Intl.supportedValuesOf('currency').filter((c) => !NOT_CODES.has(c)),
);

const WORDS: Record<string, string> = {
  'us dollars': 'USD',
  'u.s. dollars': 'USD',
  'canadian dollars': 'CAD',
  'australian dollars': 'AUD',
  'new zealand dollars': 'NZD',
  'hong kong dollars': 'HKD',
  'singapore dollars': 'SGD',
  dollar: 'USD',
  dollars: 'USD',
  euro: 'EUR',
  euros: 'EUR',
  pound: 'GBP',
  pounds: 'GBP',
  'pounds sterling': 'GBP',
  sterling: 'GBP',
  yen: 'JPY',
  yuan: 'CNY',
  renminbi: 'CNY',
  'swiss francs': 'CHF',
  francs: 'CHF',
  rupees: 'INR',
  'indian rupees': 'INR',
  rand: 'ZAR',
  'kenyan shillings': 'KES',
  'kenya shillings': 'KES',
  cedis: 'GHS',
  cedi: 'GHS',
  naira: 'NGN',
  dirhams: 'AED',
  riyals: 'SAR',
  'ugandan shillings': 'UGX',
  'tanzanian shillings': 'TZS',
  tenge: 'KZT',
  taka: 'BDT',
  forint: 'HUF',
  złoty: 'PLN',
  zloty: 'PLN',
  ringgit: 'MYR',
  rupiah: 'IDR',
  baht: 'THB',
  kronor: 'SEK',
  kroner: 'NOK',
  birr: 'ETB',
  pesos: 'MXN',
  đồng: 'VND',
  lei: 'RON',
  fcfa: 'XOF',
  'f cfa': 'XOF',
  'francs cfa': 'XOF',
  'cfa francs': 'XOF',
};
const SCALES: Record<string, number> = {
  thousand: 1e3,
  k: 1e3,
  million: 1e6,
  mn: 1e6,
  mio: 1e6,
  m: 1e6,
  billion: 1e9,
  bn: 1e9,
  b: 1e9,
  trillion: 1e12,
  lakh: 1e5,
  lakhs: 1e5,
  lac: 1e5,
  lacs: 1e5,
  crore: 1e7,
  crores: 1e7,
  cr: 1e7,
  // Other languages' words for a million and a thousand millions (a "billion" in English).
  mln: 1e6,
  millions: 1e6,
  millones: 1e6,
  millón: 1e6,
  millon: 1e6,
  milhões: 1e6,
  milhão: 1e6,
  milioni: 1e6,
  milione: 1e6,
  millionen: 1e6,
  miljoen: 1e6,
  miljoner: 1e6,
  millioner: 1e6,
  milyon: 1e6,
  triệu: 1e6,
  mrd: 1e9,
  mld: 1e9,
  mds: 1e9,
  milliard: 1e9,
  milliards: 1e9,
  milliarden: 1e9,
  milliarder: 1e9,
  miljard: 1e9,
  miljarder: 1e9,
  miliardi: 1e9,
  miliardo: 1e9,
  bilhões: 1e9,
  bilhão: 1e9,
  milyar: 1e9,
  tỷ: 1e9,
  juta: 1e6,
  miliar: 1e9,
  'mil.': 1e6,
  // Finnish, Estonian, Czech/Slovak, Polish, Russian abbreviations of a million and a thousand millions.
  milj: 1e6,
  'milj.': 1e6,
  miljoonaa: 1e6,
  miljardia: 1e9,
  'mln.': 1e6,
  'mio.': 1e6,
  'mrd.': 1e9,
  'mld.': 1e9,
  mlrd: 1e9,
  'mlrd.': 1e9,
  млн: 1e6,
  млрд: 1e9,
};
// Scale words of English-writing documents, where a comma before three digits groups thousands.
const ENGLISH_SCALES = new Set([
  'thousand',
  'million',
  'billion',
  'trillion',
  'bn',
  'mn',
  'lakh',
  'lakhs',
  'crore',
  'crores',
]);
// Swedish and Norwegian write the scale into the krona: "4,2 Mkr", "14,6 mnkr", "1,1 mdkr".
const KRONA_SCALES: Record<string, number> = { mkr: 1e6, mnkr: 1e6, mdkr: 1e9 };

const CODE = [...CURRENCY_CODES].join('|');
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// Longest first, so "US$" wins over "$" and "GH₵" over "₵".
const SIGN_LIST = [
  'US$',
  'U.S.$',
  'NT$',
  'NIS',
  'CA$',
  'C$',
  'AU$',
  'A$',
  'NZ$',
  'HK$',
  'S$',
  'R$',
  'MX$',
  'CN¥',
  'GH₵',
  'GH¢',
  'FJ$',
  'U$S',
  '$U',
  'FCFA',
  'Frw',
  'JD',
  'KD',
  'BD',
  'Kz',
  'Kshs.',
  'Kshs',
  'KShs.',
  'KSh.',
  'KSh',
  'Ksh.',
  'Ksh',
  'Rs.',
  'Rs',
  'SFr.',
  'Fr.',
  'RMB',
  '$',
  '€',
  '£',
  '¥',
  '₹',
  '₩',
  '₽',
  '₺',
  '₪',
  '₦',
  '₱',
  '₵',
  '฿',
  '₫',
  'zł',
  'Kč',
  'kr.',
  'kr',
  '₸',
  '৳',
  'Tk.',
  'Tk',
  'RM',
  'Rp.',
  'Rp',
  'Dhs.',
  'Dhs',
  'Dh',
  'S/.',
  'S/',
  '₴',
  '₾',
  '₮',
  '֏',
  '₼',
  '₡',
  '₭',
  '៛',
  '₲',
  'E£',
  'Php',
  'TShs',
  'TSh',
  'Tsh',
  'USh',
  'Br',
  'Ar',
  'R',
  'K',
];
const SIGN = `(?:${SIGN_LIST.map(escapeRegExp).join('|')})`;
const AFTER_SIGNS = `(?:${['€', '£', '¥', '₹', '₩', '₽', '₺', '₪', '₦', '₱', '₵', '฿', '₫', 'zł', 'Kč', 'kr', 'Ft', 'Fr.', '₸', '৳', '₴', '₾', '₮', '֏', '₼', '₡', '₭', '៛', '₲', 'VNĐ', 'đ'].map(escapeRegExp).join('|')}|(?:mnkr|mdkr|mkr|dhs?|Frw|Ar|DT|KD|JD|Kz)(?!\\p{L})|\\$(?![\\p{L}\\p{N}]))`;
// Indian grouping before Western: "4,50,00,000" is not "4,50" followed by more.
const NUMBER =
  "(\\d{1,2}(?:,\\d{2})+,\\d{3}(?:\\.\\d{1,2})?|\\d{1,3}(?:[,.\\u00a0\\u202f\\u2009 '’]\\d{3})+(?:[.,]\\d{1,2})?|\\d+(?:[.,]\\d{1,2})?)";
// A scale word on the number's line ("4.5 crore", "2,45 mrd.", "95 millones"), not a word of the next line.
const SCALE = `(?:[^\\S\\n]?((?i:${Object.keys(SCALES)
  .sort((a, b) => b.length - a.length)
  .map(escapeRegExp)
  .join('|')}))(?![\\p{L}\\p{N}]))?`;
// A minus written against the amount: "-£1,200", "USD -1,200", "−€50"; not the dash of a range ("£1,000–£2,000").
const MINUS = '(?:(?<![\\p{L}\\p{N}.,])([-−–])(?=\\S))?';
const BEFORE = new RegExp(
  `${MINUS}(?<![\\p{L}\\d])(${SIGN}|(?:${CODE})\\b(?:[^\\S\\n]?\\$)?)[^\\S\\n]?([-−]|\\((?=\\d))?${NUMBER}${SCALE}`,
  'gu',
);
const AFTER = new RegExp(
  `${MINUS}(?<![\\p{L}\\d$€£.,])${NUMBER}${SCALE}(?:[^\\S\\n](de|di|of|d['’](?=\\p{L})))?[^\\S\\n]?(${AFTER_SIGNS}|(?:${CODE})\\b|(?:${Object.keys(
    WORDS,
  )
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join('|')})\\b)`,
  'giu',
);

const NUMBER_WORDS: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
  a: 1,
};
const SPELLED = new RegExp(
  `\\b((?:(?:${Object.keys(NUMBER_WORDS).join('|')}|hundred|thousand|million|billion|and)[\\s-]+)+)(dollars|euros|pounds|yen|francs)\\b`,
  'gi',
);

const PENCE = /(?<![\p{L}\d.,£$€])(\d{1,2})p\b/gu;

const minorCache = new Map<string, number>();
/** How many decimals a currency is written with (3 for the dinars of Jordan, Kuwait, Bahrain, Oman, Tunisia…). */
export function minorDigits(code: string): number {
  let digits = minorCache.get(code);
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions()
      .maximumFractionDigits as number;
    minorCache.set(code, digits);
  }
  return digits;
}

/** "USD 12,500.00". */
export const formatAmount = (code: string, value: number) => formatMoney({ currency: code, value });

/** Every amount in the text, in order of appearance (duplicates included). */
export function findAmounts(text: string, options: AmountOptions = {}): AmountMention[] {
  const found: AmountMention[] = [];
  const free = (start: number, end: number) => !found.some((f) => start < f.end && end > f.start);
  const push = (currency: string, amount: number, start: number, end: number) => {
    found.push({
      value: formatAmount(currency, amount),
      amount,
      currency,
      text: text.slice(start, end).trim(),
      start,
      end,
    });
  };
  const befores = [...text.matchAll(BEFORE)];
  // A letter sign the document writes before a figure that can only be money ("R 18 500") is its
  // currency sign throughout: its small figures are money too ("a late fee of R 450").
  const established = new Set<string>();
  for (const m of befores) {
    const sign = letterSign(m[2]!);
    if (sign && plausibleAfterSign(m[2]!, m[4]!, m[5], text, m.index + m[0].length)) established.add(sign);
  }
  for (const m of befores) {
    // "MXN $12,000": the code says which dollar.
    const sign = /^[A-Z]{3}\s?\$$/.test(m[2]!) ? m[2]!.slice(0, 3) : m[2]!;
    const number = m[4]!;
    const code = dollarCodeAfter(text, m.index + m[0].length, sign) ?? currencyOf(sign, options);
    if (!code) continue;
    if (
      !plausibleAfterSign(sign, number, m[5], text, m.index + m[0].length) &&
      !(
        established.has(letterSign(sign) ?? '') &&
        !/^[\p{L}%]/u.test(text.slice(m.index + m[0].length, m.index + m[0].length + 1))
      )
    )
      continue;
    // "TB-R-0561932": a reference, not money; a leading zero is never how an amount is written.
    if ((/^\p{L}/u.test(sign) && !m[1] && text[m.index - 1] === '-') || /^0\d/.test(number)) continue;
    // "£(7,250)": an accountant's negative, the bracket closing right after the figure.
    const end = m.index + m[0].length;
    if (m[3] === '(' && text[end] !== ')') continue;
    // "SEK 14,6 mkr": the scale written into the krona after the figure.
    const kronaScale = m[5] ? undefined : /^[^\S\n]?(mnkr|mdkr|mkr)(?!\p{L})/iu.exec(text.slice(end, end + 6));
    const parsed = parseNumber(number, m[5], minorDigits(code));
    const value =
      parsed !== null && kronaScale
        ? Math.round(parsed * KRONA_SCALES[kronaScale[1]!.toLowerCase()]! * 100) / 100
        : parsed;
    if (value !== null) {
      // "EUR 1.250,00-": a bank statement's trailing minus (not a range "EUR 100-200", not "USD 5-year").
      const trailing = !m[3] && !kronaScale && /^[-−](?![\p{L}\p{N}])/u.test(text.slice(end, end + 2));
      const negative = m[1] || m[3] || trailing || bracketed(text, m.index, end);
      push(
        code,
        negative ? -value : value,
        m.index,
        m[3] === '(' ? end + 1 : end + (kronaScale?.[0].length ?? 0) + (trailing ? 1 : 0),
      );
    }
  }
  for (const m of text.matchAll(AFTER)) {
    // "1,2 million de dirhams", "1,2 milioni di euro": a connector only after a scale word.
    if (m[4] && !m[3]) continue;
    const kronaScale = KRONA_SCALES[m[5]!.toLowerCase()];
    const code = kronaScale ? (options.krona ?? null) : currencyOf(m[5]!, options);
    const parsed = code ? parseNumber(m[2]!, m[3], minorDigits(code)) : null;
    const value = parsed === null ? null : kronaScale && !m[3] ? Math.round(parsed * kronaScale * 100) / 100 : parsed;
    if (code && value !== null && free(m.index, m.index + m[0].length))
      push(
        code,
        m[1] || bracketed(text, m.index, m.index + m[0].length) ? -value : value,
        m.index,
        m.index + m[0].length,
      );
  }
  // "45p a mile": pence, where the document deals in pounds.
  if (/£|\bGBP\b/.test(text)) {
    for (const m of text.matchAll(PENCE)) {
      if (free(m.index, m.index + m[0].length)) push('GBP', Number(m[1]) / 100, m.index, m.index + m[0].length);
    }
  }
  for (const m of text.matchAll(SPELLED)) {
    const value = parseNumberWords(m[1]!);
    const code = WORDS[m[2]!.toLowerCase()];
    if (code && value !== null && value > 0 && free(m.index, m.index + m[0].length))
      push(code, value, m.index, m.index + m[0].length);
  }
  return found.sort((a, b) => a.start - b.start);
}

/**
 * "(KES 1,250,000)", "(₹ 2,10,000)": an amount alone in brackets is a negative in accounts; not
 * where the brackets restate the figure before them ("¥1,452,000 (JPY 1,452,000)", "₹41.85 crore (INR …)").
 */
function bracketed(text: string, start: number, end: number): boolean {
  const before = /\(\s?$/.exec(text.slice(Math.max(0, start - 2), start));
  if (!before || !/^\s?\)/.test(text.slice(end, end + 2))) return false;
  const lead = text.slice(Math.max(0, start - 40), start - before[0].length);
  // A figure in a column of its own ("Payment received, 10-02-2025      (₹ 1,00,00,000)") is a
  // debit whatever stands in the column before it.
  if (/(?:\t|\||[^\S\n]{2,})$/u.test(lead) || /(?:^|\n)[^\S\n]*$/u.test(lead)) return true;
  // In prose a bracket after "a loss of", "refund of", "Net:" is the accountant's minus; after a
  // noun, a name or a percentage it restates or explains ("10 % (GBP 24,500)", "Nexans AS (EUR 212
  // million)", "30% deposit (US$ 23,920.20)").
  return /(?:\b(?:of|is|was|were|at|less|minus|refunds?|credits?|loss(?:es)?|write-?offs?|deficits?|discounts?|rebates?|deductions?|returns?|adjustments?|shortfalls?|overdrafts?)|[:=])$/iu.test(
    lead.replace(/[\s*_]+$/u, ''),
  );
}

// Currencies written with a dollar sign: "$12,000 MXN", "MXN $12,000" name which one.
const DOLLAR_CODES = new Set(['USD', 'CAD', 'AUD', 'NZD', 'SGD', 'HKD', 'TWD', 'MXN', 'ARS', 'CLP', 'COP', 'UYU']);

/** The code after a dollar amount that says which dollar or peso it is ("$12,000 MXN"). */
function dollarCodeAfter(text: string, end: number, sign: string): string | null {
  if (sign !== '$') return null;
  const code = /^[^\S\n]?([A-Z]{3})\b/.exec(text.slice(end, end + 5))?.[1];
  return code && DOLLAR_CODES.has(code) ? code : null;
}

// Signs that are also abbreviations (a rating "R 2", "Dh" in a name, "RM 3" a room) need a number
// that can only be money after them.
const LETTER_SIGNS = new Set([
  'php',
  'r',
  'rs',
  'tk',
  'rm',
  'rp',
  'dh',
  'dhs',
  'tsh',
  'tshs',
  'ush',
  'br',
  'jd',
  'kd',
  'bd',
  'ar',
  'k',
  'kz',
  'frw',
]);

/** The sign lower-cased when it is one of the letter signs ("R", "Rs.", "K"), else null. */
function letterSign(sign: string): string | null {
  const lower = sign.toLowerCase().replace(/\.$/, '');
  return LETTER_SIGNS.has(lower) ? lower : null;
}

// Signs that are also letters or words need a number that can only be money after them:
// "R 400,000" is rand, "R 2" a rating; "Rs 500" rupees, "kr" only where the locale says which krona.
function plausibleAfterSign(
  sign: string,
  number: string,
  scale: string | undefined,
  text: string,
  end: number,
): boolean {
  if (LETTER_SIGNS.has(sign.toLowerCase().replace(/\.$/, '')))
    return /[,.\s'’]/.test(number) || number.length >= 4 || scale !== undefined;
  if (sign === 'kr' || sign === 'kr.') return true;
  // "EUR 5-year": a code before a number that runs on into a word is not money.
  return !/^-?\p{L}/u.test(text.slice(end, end + 2));
}

/** The code a sign, code or currency word stands for in a document of these options ("Rp" → IDR, "kr" → its krona). */
export function currencyOf(raw: string, options: AmountOptions = {}): string | null {
  const lower = raw.toLowerCase().replace(/\s+/g, ' ');
  if (raw === '$') return options.dollar ?? 'USD';
  if (raw === '¥') return options.yen ?? 'JPY';
  if (lower === 'kr' || lower === 'kr.' || lower === 'kroner') return options.krona ?? null;
  if (lower === 'rs' || lower === 'rs.' || lower === 'rupees') return options.rupee ?? 'INR';
  if (/^(?:dh|dhs\.?|dirhams?)$/.test(lower)) return options.dirham ?? 'AED';
  if (/^(?:f\s?cfa|cfa|francs cfa|cfa francs)$/.test(lower)) return options.cfa ?? 'XOF';
  if (raw === 'K') return options.kwacha ?? null;
  if (lower === 'dt') return 'TND';
  if (lower === 'ft') return 'HUF';
  if (/^[A-Z]{3}$/.test(raw) && CURRENCY_CODES.has(raw)) return raw;
  if (/^[a-z]{3}$/i.test(raw) && CURRENCY_CODES.has(raw.toUpperCase()) && raw !== raw.toLowerCase())
    return raw.toUpperCase();
  return SYMBOLS[lower] ?? WORDS[lower] ?? null;
}

/**
 * A written number: "12,500.00", "12.500,00" (European), "9 750,00", "1'250.00" (Swiss),
 * "4,50,00,000" (Indian), with an optional scale word ("2.4 million", "1.8M", "4.5 crore"). Three
 * digits after a lone dot or comma are thousands.
 */
export function parseNumber(raw: string, scale?: string, minor = 2): number | null {
  // "JOD 6.850", "KWD 1,250.500": dinars keep three decimals, so a last dot before three digits is the decimal mark.
  if (minor === 3 && !scale && /^\d{1,3}(?:,\d{3})*\.\d{3}$/.test(raw)) return Number(raw.replace(/,/g, ''));
  // Spaces and apostrophes only ever group thousands ("7 968,60", "1'250.00"): the mark left is the decimal one.
  if (/\d[\u00a0\u202f\u2009 '’]\d{3}/.test(raw)) {
    const rest = raw.replace(/[\u00a0\u202f\u2009 '’]/g, '');
    const decimal = /[.,](\d{1,2})$/.exec(rest);
    const whole = (decimal ? rest.slice(0, -decimal[0].length) : rest).replace(/[.,]/g, '');
    const value = Number(decimal ? `${whole}.${decimal[1]}` : whole);
    if (!Number.isFinite(value)) return null;
    const factor = scale ? SCALES[scale.toLowerCase()] : 1;
    return factor ? Math.round(value * factor * 100) / 100 : null;
  }
  let s = raw.replace(/[\u00a0\u202f\u2009 '’]/g, ',');
  const lastDot = s.lastIndexOf('.');
  const lastComma = s.lastIndexOf(',');
  let decimalSep: string | null = null;
  if (lastDot >= 0 && lastComma >= 0) decimalSep = lastDot > lastComma ? '.' : ',';
  else if (lastDot >= 0 || lastComma >= 0) {
    const sep = lastDot >= 0 ? '.' : ',';
    const after = s.length - Math.max(lastDot, lastComma) - 1;
    const groups = s.split(sep).length - 1;
    // "2,450 mrd." is two and a half thousand millions; "₫1,250 billion", with an English scale word, a thousand.
    decimalSep =
      after === 3 && (groups > 1 || !scale || (sep === ',' && ENGLISH_SCALES.has(scale.toLowerCase())))
        ? null
        : groups === 1
          ? sep
          : null;
  }
  s = decimalSep
    ? s
        .split(decimalSep)
        .map((part, i, parts) => (i === parts.length - 1 ? part : part.replace(/[.,]/g, '')))
        .join('.')
    : s.replace(/[.,]/g, '');
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
  for (const word of phrase
    .toLowerCase()
    .split(/[\s-]+/)
    .filter(Boolean)) {
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

/** One amount as an AI model may answer it, as money; null if not money. */
export function parseMoney(raw: string, options: AmountOptions = {}): AmountMention | null {
  const [first] = findAmounts(raw.trim(), options);
  return first ?? null;
}
