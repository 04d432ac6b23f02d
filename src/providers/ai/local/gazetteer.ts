import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { countries } from 'countries-list';
import { COMPANY_NAMES } from './company-names.ts';
import { isCommonWord, isFirstName, isKnownPlace, isLastName, lexiconTags, ORG_WORDS } from './lexicon.ts';
import { NAME_TOKEN } from './name-spans.ts';
import { GENERIC_CAPITALISED, ROLE_WORDS, STRONG_ORG_HEADS, WEAK_ORG_HEADS } from './name-words.ts';
import { WELL_KNOWN_COMPANIES } from './well-known-companies.ts';

// Maintained lists of names the rules consult, from packages that ship them (MIT, all three):
// - countries-list: the world's countries (ISO 3166-1), their aliases, currencies and capitals;
// - city-timezones: ~7,300 cities with their country (the larger ones of every country);
// - @cspell/dict-companies: ~2,300 words of well-known company names (cspell's dictionary);
// - country-region-data: ~4,400 first-level regions of every country (states, provinces,
//   counties, regions: "Maharashtra", "Nuevo León", "Western Cape", "Bình Dương");
// and one generated from a package at build time, not a dependency (company-names.ts, BSD-3-Clause):
// - name-suggestion-index: whole names of well-known companies and brands ("DB Schenker",
//   "Marks & Spencer", "State Bank of India").
// Loaded on first use and kept as small maps: a few hundred kilobytes of strings.

const require = createRequire(import.meta.url);

/** Lower-case, without diacritics ("zürich" → "zurich"): how names are looked up. */
export const foldName = (name: string) => {
  const cached = folded.get(name);
  if (cached !== undefined) return cached;
  const out = name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[’]/g, "'")
    // Letters that carry their stroke in the letter itself, not in a combining mark ("Đà Nẵng" → "da nang").
    .replace(/[đð]/g, 'd')
    .replace(/ø/g, 'o')
    .replace(/ł/g, 'l');
  // Names repeat across a document and between documents: a bounded memo of the folded forms.
  if (folded.size >= 20_000) folded.clear();
  folded.set(name, out);
  return out;
};
const folded = new Map<string, string>();

interface Country {
  code: string;
  name: string;
  currency: string | null;
}

let countryIndex: Map<string, Country> | null = null;
/** Countries by folded name, native name and alias ("united kingdom", "uk", "deutschland"). */
function countryByName(): Map<string, Country> {
  if (countryIndex) return countryIndex;
  countryIndex = new Map();
  for (const [code, c] of Object.entries(countries) as [
    string,
    { name: string; native: string; alias?: string[]; currency: string[] },
  ][]) {
    const country = { code, name: c.name, currency: c.currency[0] ?? null };
    for (const name of [c.name, c.native, ...(c.alias ?? [])])
      if (name.length > 2 || name === 'UK') countryIndex.set(foldName(name), country);
  }
  // Common names the list spells otherwise.
  for (const [alias, code] of [
    ['usa', 'US'],
    ['u.s.', 'US'],
    ['u.s.a.', 'US'],
    ['america', 'US'],
    ['england', 'GB'],
    ['scotland', 'GB'],
    ['wales', 'GB'],
    ['northern ireland', 'GB'],
    ['holland', 'NL'],
    ['the netherlands', 'NL'],
    ['south korea', 'KR'],
    ['russia', 'RU'],
    ['vietnam', 'VN'],
    ['uae', 'AE'],
    ['czech republic', 'CZ'],
    ['turkey', 'TR'],
  ] as const) {
    const c = countries[code as keyof typeof countries];
    countryIndex.set(alias, { code, name: c.name, currency: c.currency[0] ?? null });
  }
  return countryIndex;
}

/** The country a name denotes ("Kenya", "UK", "Deutschland"), or null. */
export function findCountry(name: string): Country | null {
  return countryByName().get(foldName(name)) ?? null;
}

/** The main currency of a country (ISO 3166-1 alpha-2), or null. */
export function currencyOfCountry(code: string): string | null {
  return countries[code as keyof typeof countries]?.currency[0] ?? null;
}

/** The countries whose currency this is (ISO 4217 → alpha-2 codes). */
export function countriesOfCurrency(currency: string): string[] {
  return Object.entries(countries)
    .filter(([, c]) => c.currency[0] === currency)
    .map(([code]) => code);
}

interface City {
  country: string;
  population: number;
}

let cityIndex: Map<string, City> | null = null;
/** Cities by folded name (and ASCII spelling), the most populous of a name winning. */
function cityByName(): Map<string, City> {
  if (cityIndex) return cityIndex;
  cityIndex = new Map();
  const file = require.resolve('city-timezones/data/cityMap.json');
  const rows = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    city: string;
    city_ascii: string;
    iso2: string;
    pop: number;
  }[];
  for (const row of rows) {
    for (const name of new Set([foldName(row.city), foldName(row.city_ascii)])) {
      const current = cityIndex.get(name);
      if (!current || current.population < row.pop)
        cityIndex.set(name, { country: row.iso2, population: Math.round(row.pop) });
    }
  }
  // The gazetteer spells cities in English; documents written where they stand use their own names.
  for (const [own, english] of CITY_ENDONYMS) {
    const city = cityIndex.get(english);
    if (city && !cityIndex.has(own)) cityIndex.set(own, city);
  }
  return cityIndex;
}

// Own-language names of large cities whose English name the gazetteer holds (folded; own name, English name).
const CITY_ENDONYMS: [string, string][] = [
  ['milano', 'milan'],
  ['genova', 'genoa'],
  ['torino', 'turin'],
  ['napoli', 'naples'],
  ['firenze', 'florence'],
  ['venezia', 'venice'],
  ['roma', 'rome'],
  ['wien', 'vienna'],
  ['praha', 'prague'],
  ['warszawa', 'warsaw'],
  ['munchen', 'munich'],
  ['koln', 'cologne'],
  ['lisboa', 'lisbon'],
  ['sevilla', 'seville'],
  ['bruxelles', 'brussels'],
  ['brussel', 'brussels'],
  ['den haag', 'the hague'],
  ['kobenhavn', 'copenhagen'],
  ['moskva', 'moscow'],
  ['beograd', 'belgrade'],
  ['bucuresti', 'bucharest'],
  ['athina', 'athens'],
  ['geneve', 'geneva'],
  ['genf', 'geneva'],
  ['ciudad de mexico', 'mexico city'],
  ['karaganda', 'qaraghandy'],
  ['karagandy', 'qaraghandy'],
  ['al qahirah', 'cairo'],
  ['krung thep', 'bangkok'],
  ['yangon', 'rangoon'],
];

/** A city of the gazetteer ("Nairobi" → KE), or null. Small towns named like words are left to context. */
export function findCity(name: string): City | null {
  const folded = foldName(name);
  // "Hải Phòng": Vietnamese names are written in syllables that the gazetteer may join ("Haiphong").
  return (
    cityByName().get(folded) ??
    (folded.includes(' ') && folded.length <= 16 ? (cityByName().get(folded.replace(/ /g, '')) ?? null) : null)
  );
}

interface Region {
  country: string;
}

let regionIndex: Map<string, Region> | null = null;
/** First-level regions by folded name ("maharashtra", "nuevo leon", "binh duong"). */
function regionByName(): Map<string, Region> {
  if (regionIndex) return regionIndex;
  regionIndex = new Map();
  const file = require.resolve('country-region-data/data.json');
  const rows = JSON.parse(fs.readFileSync(file, 'utf8')) as { countryShortCode: string; regions: { name: string }[] }[];
  for (const row of rows) {
    for (const region of row.regions) {
      // "Hessen (Hesse)", "Dublin City": the name itself, and the name in brackets.
      for (const name of region.name.split(/\s*[()]\s*/).filter((n) => n.length > 2)) {
        const folded = foldName(name);
        if (!regionIndex.has(folded)) regionIndex.set(folded, { country: row.countryShortCode });
      }
    }
  }
  return regionIndex;
}

/** A first-level region of a country ("Tamil Nadu" → IN), or null. Regions named like words ("Central") are the caller's to weigh. */
export function findRegion(name: string): Region | null {
  const folded = foldName(name);
  return (
    regionByName().get(folded) ??
    (folded.includes(' ') && folded.length <= 16 ? (regionByName().get(folded.replace(/ /g, '')) ?? null) : null)
  );
}

/** A country, region or city the gazetteers know by this whole name. */
export function isGazetteerPlace(name: string): boolean {
  return findCountry(name) !== null || findRegion(name) !== null || findCity(name) !== null;
}

let companyIndex: Set<string> | null = null;
/**
 * Distinctive words of well-known company names ("maersk", "equinix", "kpmg", "schenker"):
 * cspell's list less what is also a given or family name, a place, a generic organisation head
 * ("bank", "logistics") or an ordinary word of compromise's lexicon.
 */
function companies(): Set<string> {
  if (companyIndex) return companyIndex;
  companyIndex = new Set();
  const file = path.join(path.dirname(require.resolve('@cspell/dict-companies')), 'dict', 'companies.txt');
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const word = line.trim();
    if (!word || word.startsWith('#') || !/^\p{L}[\p{L}\p{N}&'-]+$/u.test(word)) continue;
    const lower = foldName(word);
    if (lower.length < 3 && !/^\p{Lu}+$/u.test(word)) continue;
    if (isFirstName(lower) || isLastName(lower) || isKnownPlace(lower) || findCity(lower) || findCountry(lower))
      continue;
    if (
      STRONG_ORG_HEADS.has(lower) ||
      WEAK_ORG_HEADS.has(lower) ||
      ORG_WORDS.has(lower) ||
      GENERIC_CAPITALISED.has(lower) ||
      ROLE_WORDS.has(lower)
    )
      continue;
    if (GENERIC_SHAPE.test(lower) || PAYMENT_NETWORKS.has(lower)) continue;
    const tags = lexiconTags(lower);
    if (
      tags.length > 0 &&
      !tags.includes('Organization') &&
      !tags.every((t) => t === 'Actor' || t === 'Singular' || t === 'Noun')
    )
      continue;
    companyIndex.add(lower);
  }
  return companyIndex;
}

// Card networks name how a receipt was paid, not a party to it.
const PAYMENT_NETWORKS = new Set(['visa', 'mastercard', 'maestro', 'amex', 'discover', 'unionpay', 'jcb', 'paypal']);

// Words shaped like ordinary English nouns and adjectives ("aerospace" stays, "automotive",
// "classification", "communications" go): company names are rarely built that way.
const GENERIC_SHAPE =
  /(?:tion|tions|sion|ics|ing|ment|ments|ness|ity|ive|ous|ful|al|ary|ory|ies|ism|ery|ance|ence|ship|able|ible|ware|ists?)$/;

/** A card network or payment service ("Visa", "Mastercard"): how something was paid, not a party to it. */
export const isPaymentNetwork = (word: string) => PAYMENT_NETWORKS.has(foldName(word));

/** A distinctive word of a well-known company name ("Maersk", "KPMG", "Equinix"). */
export function isKnownCompanyWord(word: string): boolean {
  return companies().has(foldName(word));
}

/** A written word as the company gazetteer keys it: folded, without a possessive "'s" or dots ("S.A." → "sa"). */
// ASCII words need only lower-casing: no normalisation, no memo entry (most words of a text are looked up once).
const companyWord = (word: string) =>
  (/^[\x20-\x7e]*$/.test(word) ? word.toLowerCase() : foldName(word)).replace(/'s$/, '').replace(/\./g, '');

/** The look-up key of a name's words ("Marks", "&", "Spencer" → "marks & spencer"). */
export function companyKeyOfWords(words: readonly string[]): string {
  return words.map(companyWord).filter(Boolean).join(' ');
}

// What the generated list leaves out as a one-word name: a word of the language, a person's name, a place.
const ordinaryWord = (key: string) =>
  isCommonWord(key) || isFirstName(key) || isLastName(key) || isKnownPlace(key) || findCity(key) !== null;

let companyNameIndex: { names: Set<string>; firstWords: Set<string> } | null = null;
function companyNames(): { names: Set<string>; firstWords: Set<string> } {
  if (companyNameIndex) return companyNameIndex;
  const names = new Set(COMPANY_NAMES.split('\n').filter(Boolean));
  // The hand-kept list of firms that sell to firms, keyed as the generated list is.
  for (const line of WELL_KNOWN_COMPANIES.split('\n')) {
    const weak = line.startsWith('~');
    const key = companyKeyOfWords([...line.replace(/^~/, '').matchAll(NAME_TOKEN)].map((m) => m[0]));
    if (!key || (!key.includes(' ') && ordinaryWord(key))) continue;
    names.add(weak ? `~${key}` : key);
  }
  // Most words start no name: one set read rules them out before any longer key is built.
  const firstWords = new Set([...names].map((n) => n.replace(/^~/, '').split(' ', 1)[0]!));
  companyNameIndex = { names, firstWords };
  return companyNameIndex;
}

/** A run of a span's words that is a well-known company's whole name: [start, end) and whether its words are all ordinary ones. */
export interface CompanyNameMatch {
  start: number;
  end: number;
  /** Made only of words of the language ("Premier Inn"): to be taken only as a whole span. */
  weak: boolean;
}

/** The longest run of words (at most six) that is a well-known company's whole name, or null. The words are a capitalised span's, as written. */
export function findCompanyName(words: readonly string[]): CompanyNameMatch | null {
  const { names, firstWords } = companyNames();
  const keys = words.map(companyWord);
  let best: CompanyNameMatch | null = null;
  for (let i = 0; i < keys.length; i++) {
    if (!firstWords.has(keys[i]!)) continue;
    for (let j = Math.min(keys.length, i + 6); j > i; j--) {
      if (best && j - i <= best.end - best.start) break;
      const key = keys.slice(i, j).join(' ');
      const strong = names.has(key);
      if (strong || names.has(`~${key}`)) {
        best = { start: i, end: j, weak: !strong };
        break;
      }
    }
  }
  return best;
}
