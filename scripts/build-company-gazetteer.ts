/**
 * Builds src/providers/ai/local/company-names.ts, the gazetteer of well-known company and brand
 * names the local entity extractor looks whole names up in ("DB Schenker", "Marks & Spencer",
 * "State Bank of India"), from the npm package `name-suggestion-index` (OpenStreetMap's
 * name-suggestion-index, BSD-3-Clause). The package is not a dependency: fetch it once into a
 * temporary folder and point this script at it.
 *
 *   cd "$(mktemp -d)" && npm pack name-suggestion-index && tar xzf name-suggestion-index-*.tgz
 *   node scripts/build-company-gazetteer.ts <that folder>/package
 *
 * Kept: the names (brand, operator, name and their English forms) of the `brands/*` and
 * `operators/*` entries that have a Wikidata item (notable enough to be written about), in Latin
 * script, of one to six words, starting with a capital or a digit. Left out, so that a look-up stays
 * cheap and a match is a company's name and not a word of the language: one-word names that are
 * ordinary words, given or family names, places, organisation heads or generic capitalised terms
 * ("Target", "Next", "Boots", "Shell" as a word, "Finance"), and longer names made only of such
 * words ("Post Office", "The Range"). Each name is stored as its look-up key (gazetteer.ts's
 * `companyKeyOfWords`): folded, one space between words; the names made only of words of the language
 * are marked "~" and taken only as a whole span.
 */
import fs from 'node:fs';
import path from 'node:path';
import { STOP_WORDS } from '../src/providers/ai/text.ts';
import { companyKeyOfWords, findCity, findCountry, findRegion } from '../src/providers/ai/local/gazetteer.ts';
import {
  isCommonWord,
  isFirstName,
  isKnownPlace,
  isLastName,
  lexiconTags,
  ORG_WORDS,
} from '../src/providers/ai/local/lexicon.ts';
import { NAME_TOKEN } from '../src/providers/ai/local/name-spans.ts';
import {
  GENERIC_CAPITALISED,
  LEGAL_SUFFIXES,
  ROLE_WORDS,
  STREET_WORDS,
  STRONG_ORG_HEADS,
  WEAK_ORG_HEADS,
} from '../src/providers/ai/local/name-words.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const OUT = path.join(ROOT, 'src/providers/ai/local/company-names.ts');

const source = process.argv[2];
// Debian's `wamerican` word list: its lower-case entries are words of the language ("shell", "target").
const wordList = process.argv[3] ?? '/usr/share/dict/american-english';
if (!source || !fs.existsSync(wordList)) {
  process.stderr.write(
    'usage: node scripts/build-company-gazetteer.ts <unpacked name-suggestion-index package> [word list, default /usr/share/dict/american-english (apt-get install wamerican)]\n',
  );
  process.exit(2);
}
const entries = fs
  .readFileSync(wordList, 'utf8')
  .split('\n')
  .map((w) => w.trim().replace(/'s$/, ''))
  .filter(Boolean);
const DICTIONARY = new Set(entries.filter((w) => w === w.toLowerCase()));
// Its capitalised entries are proper nouns: short ones are as often a given name or an abbreviation ("Ava", "CPA").
const SHORT_PROPER = new Set(entries.filter((w) => w !== w.toLowerCase() && w.length <= 4).map((w) => w.toLowerCase()));
const pkg = JSON.parse(fs.readFileSync(path.join(source, 'package.json'), 'utf8')) as {
  version: string;
  license: string;
};
const nsi = JSON.parse(fs.readFileSync(path.join(source, 'dist/json/nsi.json'), 'utf8')) as {
  nsi: Record<string, { items: { tags: Record<string, string> }[] }>;
};

const NAME_TAGS = ['brand', 'brand:en', 'operator', 'operator:en', 'name', 'name:en'];
const LATIN = /^[\p{Script=Latin}\p{N}&'’.+\- ]+$/u;
// Words shaped like ordinary English nouns and adjectives ("Solutions", "Financial"): not a name alone.
const GENERIC_SHAPE =
  /(?:tion|tions|sion|ics|ing|ment|ments|ness|ity|ive|ous|ful|al|ary|ory|ies|ism|ery|ance|ence|ship|able|ible|ware|ists?)$/;

/** A word of the language: a dictionary's, a stop word, a generic capitalised term or an organisation head. */
function languageWord(word: string): boolean {
  return (
    DICTIONARY.has(word) ||
    STOP_WORDS.has(word) ||
    isCommonWord(word) ||
    GENERIC_CAPITALISED.has(word) ||
    ROLE_WORDS.has(word) ||
    STRONG_ORG_HEADS.has(word) ||
    WEAK_ORG_HEADS.has(word) ||
    ORG_WORDS.has(word) ||
    LEGAL_SUFFIXES.has(word) ||
    word === '&'
  );
}

/** A word that says nothing of which company is meant: the language's, a person's or a place's. */
function ordinary(word: string): boolean {
  return (
    word.length < 3 ||
    languageWord(word) ||
    /^\d+$/.test(word) ||
    STOP_WORDS.has(word) ||
    isCommonWord(word) ||
    isFirstName(word) ||
    isLastName(word) ||
    isKnownPlace(word) ||
    findCountry(word) !== null ||
    findRegion(word) !== null ||
    findCity(word) !== null ||
    GENERIC_CAPITALISED.has(word) ||
    ROLE_WORDS.has(word) ||
    STREET_WORDS.has(word) ||
    STRONG_ORG_HEADS.has(word) ||
    WEAK_ORG_HEADS.has(word) ||
    ORG_WORDS.has(word) ||
    LEGAL_SUFFIXES.has(word) ||
    GENERIC_SHAPE.test(word) ||
    (lexiconTags(word).length > 0 && !lexiconTags(word).includes('Organization'))
  );
}

// Administrative areas an operator is named after ("Douglas County", "Bantay District"): places in a document.
const AREA_WORDS = new Set([
  'district',
  'county',
  'province',
  'region',
  'municipality',
  'parish',
  'township',
  'prefecture',
]);

/**
 * Whether a name, as its written words, identifies one company: 'strong' when one of its words is
 * not a word of the language ("DB Schenker", "Morgan Stanley"), 'weak' when all are ("Premier Inn",
 * "Best Buy": the extractor takes those only as a whole span, not opening a sentence), or null.
 */
function distinctive(written: string[], key: string[]): 'strong' | 'weak' | null {
  if (key.length === 0 || key.length > 6) return null;
  if (key.some((w) => AREA_WORDS.has(w)) || key[0] === 'region') return null;
  const whole = key.join(' ');
  if (isKnownPlace(whole) || findCountry(whole) !== null || findRegion(whole) !== null || findCity(whole) !== null)
    return null;
  // Acronyms of three letters or more ("HSBC", "BYD") name one company; two letters name too many.
  if (key.length === 1) {
    const acronym = /^\p{Lu}{3,}$/u.test(written[0]!);
    if (SHORT_PROPER.has(key[0]!)) return null;
    return (acronym ? !STOP_WORDS.has(key[0]!) && !DICTIONARY.has(key[0]!) : !ordinary(key[0]!)) ? 'strong' : null;
  }
  // "Acme Street", "Northern Council": a street or a generic closing word makes it an address or a description.
  const last = key[key.length - 1]!;
  if (STREET_WORDS.has(last) || GENERIC_CAPITALISED.has(last) || ROLE_WORDS.has(last)) return null;
  // "The Hub", "The Range": "the" and one word of the language.
  const content = key.filter((w) => w !== 'the');
  if (content.every(languageWord)) return content.length >= 2 ? 'weak' : null;
  return 'strong';
}

const keys = new Set<string>();
const weak = new Set<string>();
let seen = 0;
for (const [tree, category] of Object.entries(nsi.nsi)) {
  if (!tree.startsWith('brands/') && !tree.startsWith('operators/')) continue;
  for (const item of category.items) {
    if (!item.tags['brand:wikidata'] && !item.tags['operator:wikidata']) continue;
    for (const tag of NAME_TAGS) {
      const name = item.tags[tag]?.trim();
      if (!name || !LATIN.test(name) || !/^[\p{Lu}\p{N}]/u.test(name)) continue;
      seen++;
      const written = [...name.matchAll(NAME_TOKEN)].map((m) => m[0]);
      const key = companyKeyOfWords(written);
      const kind = distinctive(written, key.split(' ').filter(Boolean));
      if (kind === 'strong') keys.add(key);
      else if (kind === 'weak') weak.add(key);
    }
  }
}

// A name both forms give (a brand also written as a longer name) keeps the strong one.
const sorted = [...keys, ...[...weak].filter((k) => !keys.has(k)).map((k) => `~${k}`)].sort((a, b) =>
  a.replace(/^~/, '').localeCompare(b.replace(/^~/, '')),
);
const header = `/**
 * Well-known company and brand names (${sorted.length.toLocaleString('en')}), one look-up key a line (gazetteer.ts's
 * \`companyKeyOfWords\`: folded, one space between words); "~" marks a name made only of words of the
 * language ("premier inn"), taken only as a whole span. GENERATED by scripts/build-company-gazetteer.ts
 * from name-suggestion-index ${pkg.version} (https://github.com/osmlab/name-suggestion-index), do not edit.
 *
 * Source licence (${pkg.license}): Copyright name-suggestion-index contributors. Redistribution and use
 * in source and binary forms, with or without modification, are permitted provided that the following
 * conditions are met: 1. Redistributions of source code must retain the above copyright notice, this
 * list of conditions and the following disclaimer. 2. Redistributions in binary form must reproduce the
 * above copyright notice, this list of conditions and the following disclaimer in the documentation
 * and/or other materials provided with the distribution. 3. Neither the name of the copyright holder
 * nor the names of its contributors may be used to endorse or promote products derived from this
 * software without specific prior written permission. THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT
 * HOLDERS AND CONTRIBUTORS "AS IS" AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED
 * TO, THE IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE DISCLAIMED.
 * IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT,
 * INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT
 * OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER
 * CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING
 * NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE
 * POSSIBILITY OF SUCH DAMAGE.
 */
`;
// One template string: parsed as a single literal, split into a Set on first use.
const body = `export const COMPANY_NAMES = \`\n${sorted.join('\n').replace(/[`\\$]/g, (c) => `\\${c}`)}\n\`;\n`;
fs.writeFileSync(OUT, header + body);
process.stdout.write(`${seen} names read, ${sorted.length} kept → ${path.relative(ROOT, OUT)}\n`);
