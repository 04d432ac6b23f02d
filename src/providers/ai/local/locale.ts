import { countries } from 'countries-list';
import type { AmountOptions } from './amounts.ts';
import { countriesOfCurrency, findCity, findCountry } from './gazetteer.ts';

// Where a document comes from, judged by what it writes: its numeric dates (a "23/04/2025"
// settles the order for the whole document), currencies, telephone prefixes, postcodes, and the
// countries and cities it names. Decides how "03/04/2025" is read and what a bare "$" or "¥" is.

/** What the document's cues say. */
export interface Locale {
  /** The country the cues point to most (ISO 3166-1 alpha-2), or null. */
  country: string | null;
  /** How numeric dates order day and month; null when nothing tells. */
  order: 'dmy' | 'mdy' | null;
  /** How sure `order` is, in [0, 1]: near 1 when the document itself writes an unambiguous date. */
  orderConfidence: number;
  amounts: AmountOptions;
}

// Countries that write the month first; year-first ones (CN, JP, KR, TW, HU) and Canada (both) decide nothing.
const MONTH_FIRST = new Set(['US', 'PH', 'FM', 'MH', 'PW', 'BZ']);
const NO_ORDER = new Set(['CN', 'JP', 'KR', 'TW', 'HU', 'CA', 'MN', 'LT', 'IR']);
const DOLLAR_OF: Record<string, string> = {
  CA: 'CAD',
  AU: 'AUD',
  NZ: 'NZD',
  SG: 'SGD',
  HK: 'HKD',
  MX: 'MXN',
  TW: 'TWD',
  AR: 'ARS',
  CL: 'CLP',
  CO: 'COP',
  UY: 'UYU',
};
// Where "$" is the peso and "US$" the dollar: writing US$ elsewhere does not make "$" a dollar.
const PESO_DOLLAR = new Set(['MX', 'AR', 'CL', 'CO', 'UY']);
const KRONA_OF: Record<string, string> = { SE: 'SEK', NO: 'NOK', DK: 'DKK', IS: 'ISK' };

// Currency signs and codes that point to one country (the euro to the euro area, counted as a day-first place).
const CURRENCY_CUES: [RegExp, string][] = [
  [/£|\bGBP\b/g, 'GB'],
  [/€|\bEUR\b/g, 'EU'],
  [/₹|\bINR\b|\bRs\.?\s?\d/g, 'IN'],
  [/\bZAR\b|\bR\s?\d{1,3}(?:[ ,]\d{3})+/g, 'ZA'],
  [/\bKES\b|\bK[Ss]h\b/g, 'KE'],
  [/\bGHS\b|GH₵|GH¢/g, 'GH'],
  [/\bNGN\b|₦/g, 'NG'],
  [/\bAUD\b|\bA\$/g, 'AU'],
  [/\bNZD\b|\bNZ\$/g, 'NZ'],
  [/\bSGD\b|\bS\$/g, 'SG'],
  [/\bHKD\b|\bHK\$/g, 'HK'],
  [/\bCAD\b|\bC\$/g, 'CA'],
  // "US$" is how other dollar and peso countries tell the US dollar from their own: no US cue.
  [/\bUSD\b/g, 'US'],
  [/\bCHF\b/g, 'CH'],
  [/\bCNY\b|\bRMB\b/g, 'CN'],
  [/\bJPY\b/g, 'JP'],
  [/\bAED\b/g, 'AE'],
  [/\bSEK\b/g, 'SE'],
  [/\bNOK\b/g, 'NO'],
  [/\bDKK\b/g, 'DK'],
  [/\bKZT\b|₸/g, 'KZ'],
  [/\bBDT\b|৳|\bTk\.?\s?\d/g, 'BD'],
  [/\bPLN\b|\bzł/g, 'PL'],
  [/\bHUF\b|\d\sFt\b/g, 'HU'],
  [/\bTRY\b|₺/g, 'TR'],
  [/\bARS\b/g, 'AR'],
  [/\bMXN\b/g, 'MX'],
  [/\bEGP\b/g, 'EG'],
  [/\bSAR\b/g, 'SA'],
  [/\bMYR\b|\bRM\s?\d/g, 'MY'],
  [/\bIDR\b|\bRp\.?\s?\d/g, 'ID'],
  [/\bBRL\b|\bR\$/g, 'BR'],
  [/\bPKR\b/g, 'PK'],
  [/\bLKR\b/g, 'LK'],
  [/\bNPR\b/g, 'NP'],
  [/\bMAD\s?\d|\d\sMAD\b|\(MAD\)/g, 'MA'],
  [/\bTHB\b|฿/g, 'TH'],
  // Not "PHP" alone: a CV's programming language.
  [/₱|\bPHP\s?[\d-]/g, 'PH'],
  [/\bCZK\b|\bKč/g, 'CZ'],
  [/\bTWD\b|\bNT\$/g, 'TW'],
  [/\bETB\b/g, 'ET'],
  [/\bUGX\b|\bUSh\b/g, 'UG'],
  [/\bILS\b|₪|\bNIS\s?\d/g, 'IL'],
  [/\bCLP\b/g, 'CL'],
];
// The Central African franc's countries (the West African one, XOF, is the default "FCFA").
const CENTRAL_CFA = new Set(['CM', 'GA', 'TD', 'CF', 'CG', 'GQ']);
// Where a "K" before a figure is the kwacha, kina or kyat.
const KWACHA_OF: Record<string, string> = { ZM: 'ZMW', MW: 'MWK', PG: 'PGK', MM: 'MMK' };
const RUPEE_OF: Record<string, string> = { IN: 'INR', PK: 'PKR', LK: 'LKR', NP: 'NPR', MU: 'MUR', SC: 'SCR' };
const UK_POSTCODE = /\b[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}\b/g;
const US_ZIP =
  /\b(?:AL|AK|AZ|AR|CA|CO|CT|DE|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|DC)\s\d{5}(?:-\d{4})?\b/g;
const CA_POSTCODE = /\b[A-Z]\d[A-Z]\s\d[A-Z]\d\b/g;
const PHONE = /(?<![\w+])\+(\d{1,3})[\s.-]?\(?\d/g;
const NUMERIC_DATE = /(?<![\d/.-])(\d{1,2})([/.-])(\d{1,2})\2((?:19|20)\d{2}|\d{2})(?![\d/-]|\.\d)/g;
const CAPITALISED = /\p{Lu}[\p{L}'’.-]*(?:[^\S\n]+\p{Lu}[\p{L}'’.-]*){0,2}/gu;

let phoneIndex: Map<string, string> | null = null;
function countryOfPhonePrefix(prefix: string): string | null {
  if (!phoneIndex) {
    phoneIndex = new Map();
    for (const [code, c] of Object.entries(countries) as [string, { phone: number[] }][]) {
      for (const p of c.phone) if (!phoneIndex.has(String(p))) phoneIndex.set(String(p), code);
    }
    phoneIndex.set('1', 'US');
    phoneIndex.set('44', 'GB');
    phoneIndex.set('7', 'RU');
  }
  for (let n = Math.min(3, prefix.length); n >= 1; n--) {
    const hit = phoneIndex.get(prefix.slice(0, n));
    if (hit) return hit;
  }
  return null;
}

/** The locale cues of a text. */
export function detectLocale(text: string): Locale {
  const votes = new Map<string, number>();
  const vote = (country: string, weight: number, cap: number, counted: Map<string, number>) => {
    const used = counted.get(country) ?? 0;
    const add = Math.min(weight, cap - used);
    if (add <= 0) return;
    counted.set(country, used + add);
    votes.set(country, (votes.get(country) ?? 0) + add);
  };
  const currency = new Map<string, number>();
  for (const [re, country] of CURRENCY_CUES) for (const _ of text.matchAll(re)) vote(country, 1.5, 4, currency);
  // A bare dollar says nothing of the country: Canada, Australia, Hong Kong and others write it too.
  const addresses = new Map<string, number>();
  for (const _ of text.matchAll(UK_POSTCODE)) vote('GB', 3, 6, addresses);
  for (const _ of text.matchAll(US_ZIP)) vote('US', 3, 6, addresses);
  for (const _ of text.matchAll(CA_POSTCODE)) vote('CA', 3, 6, addresses);
  for (const m of text.matchAll(PHONE)) {
    const country = countryOfPhonePrefix(m[1]!);
    if (country) vote(country, 2, 4, addresses);
  }
  const names = new Map<string, number>();
  for (const m of text.matchAll(CAPITALISED)) {
    const words = m[0].split(/[^\S\n]+/);
    // The run and its tails: "Head Office Nairobi" names Nairobi; "New York" is a city as a whole.
    for (let i = 0; i < words.length; i++) {
      const name = words
        .slice(i)
        .join(' ')
        .replace(/[.,]+$/, '');
      const country = findCountry(name);
      if (country) {
        vote(country.code, 2, 4, names);
        break;
      }
      const city = findCity(name);
      if (city && city.population >= 100_000 && name.length > 3) {
        vote(city.country, 1.5, 4, names);
        break;
      }
    }
  }

  const ranked = [...votes.entries()].sort((a, b) => b[1] - a[1]);
  const [top, second] = ranked;
  const country = top && top[1] >= 1.5 && (!second || top[1] >= second[1] * 1.5) ? top[0] : null;

  // The document's own unambiguous numeric dates settle the order.
  let dayFirst = 0;
  let monthFirst = 0;
  for (const m of text.matchAll(NUMERIC_DATE)) {
    if (m[2] === '.' || Number(m[1]) > 12) dayFirst++;
    else if (Number(m[3]) > 12) monthFirst++;
  }
  let order: Locale['order'] = null;
  let orderConfidence = 0.5;
  if (dayFirst + monthFirst > 0 && dayFirst !== monthFirst) {
    order = dayFirst > monthFirst ? 'dmy' : 'mdy';
    orderConfidence = 0.95;
  } else if (ranked.length > 0) {
    // Votes for day-first places against month-first ones (the euro area counts as day-first).
    let dmy = 0;
    let mdy = 0;
    for (const [c, w] of ranked) {
      if (MONTH_FIRST.has(c)) mdy += w;
      else if (!NO_ORDER.has(c)) dmy += w;
    }
    if (dmy !== mdy && Math.max(dmy, mdy) >= 1.5) {
      order = dmy > mdy ? 'dmy' : 'mdy';
      const margin = Math.abs(dmy - mdy) / (dmy + mdy);
      orderConfidence = Math.min(0.9, 0.6 + 0.15 * margin * Math.min(2, Math.max(dmy, mdy) / 3));
    }
  }

  const amounts: AmountOptions = {};
  const explicitUsd = /\bUSD\b|\bUS\$/.test(text);
  if (country && DOLLAR_OF[country] && (!explicitUsd || PESO_DOLLAR.has(country))) amounts.dollar = DOLLAR_OF[country];
  if (country === 'CN' || /\bRMB\b|\bCNY\b/.test(text)) amounts.yen = 'CNY';
  if (country && KRONA_OF[country]) amounts.krona = KRONA_OF[country];
  // "Rs" and "Dh" are the rupee and dirham of several countries: the one the document writes as a
  // code, else its country's.
  const rupees = new Set([...text.matchAll(/\b(INR|PKR|LKR|NPR|MUR|SCR)\b/g)].map((m) => m[1]!));
  const countryRupee = country ? RUPEE_OF[country] : undefined;
  if (countryRupee && (rupees.size === 0 || rupees.has(countryRupee))) amounts.rupee = countryRupee;
  else if (rupees.size === 1) amounts.rupee = [...rupees][0]!;
  if (country === 'MA' || (/\bMAD\b/.test(text) && !/\bAED\b/.test(text))) amounts.dirham = 'MAD';
  if (country && CENTRAL_CFA.has(country)) amounts.cfa = 'XAF';
  if (country && KWACHA_OF[country]) amounts.kwacha = KWACHA_OF[country];
  return { country: country === 'EU' ? null : country, order, orderConfidence, amounts };
}

/** Whether a currency belongs to the document's country (a hint that an amount is the main one). */
export function isLocalCurrency(locale: Locale, currency: string): boolean {
  return locale.country !== null && countriesOfCurrency(currency).includes(locale.country);
}
