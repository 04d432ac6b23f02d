import { hasDigit, STOP_WORDS, splitSentences, stem, words } from '../text.ts';
import { isFirstName, lexiconTags } from './lexicon.ts';
import { PARTICLES } from './name-words.ts';

/** Options of `extractKeyPhrases`. */
export interface KeyPhraseOptions {
  limit?: number;
  /** Share (0..1) of the tenant's documents containing a phrase; rarer phrases rank higher. */
  documentFrequency?: (term: string) => number;
  /** Names of people in the text: a person is not a topic. */
  people?: string[];
  /** Every name the entity pass found (people, organisations, places): no tag is made of their words. */
  names?: string[];
  /** The tenant's existing tag names: one the text supports is preferred, in the tenant's spelling. */
  knownTags?: string[];
}

/** A key phrase and how sure the extractor is that it names a topic of the text, in [0, 1]. */
export interface KeyPhrase {
  name: string;
  confidence: number;
}

// Words that say what kind of document this is rather than what it is about.
const GENERIC = new Set(
  `agreement document page pages section sections item items number date dates total subtotal amount attn dear regards
  sincerely kind thank thanks please question questions re subject memo memorandum minutes invoice slide slides sheet
  yes part parts party parties day days week weeks month months year years time times way thing things lot bit people
  person others someone something anything everything nothing today tomorrow yesterday morning afternoon evening
  monday tuesday wednesday thursday friday saturday sunday january february march april may june july august september
  october november december jan feb mar apr jun jul aug sep sept oct nov dec mr mrs ms dr prof inc ltd llc gmbh corp
  co plc pos vat eur usd gbp per cent percent approx etc e.g i.e end start first second third last next previous
  good great fine right left able following above below herein hereby thereof whereas case cases fact level use
  thousand million billion think want know need see look come take give say tell keep let put seem feel try ask talk
  example pre sub back unit head annual com www http https org net html mail email e-mail tel fax phone address street road
  floor suite box attention hereto hereunder thereto therein said such new old current various general specific certain
  main full final initial additional relevant appropriate respective overall whole usual further other same different
  include includes including per cc bcc fwd fw regard regards sincerely yours faithfully dear hi hello team all everyone
  name names title ref reference no copy copies version draft status letter client act office committee annum`
    .split(/\s+/)
    .filter(Boolean),
);

// Lexicon tags that cannot start or end a noun phrase, or appear in one at all.
const NEVER = new Set([
  'Modal',
  'Copula',
  'Pronoun',
  'Determiner',
  'Preposition',
  'Conjunction',
  'QuestionWord',
  'Adverb',
  'Expression',
  'Negative',
  'TextValue',
  'Cardinal',
  'Ordinal',
  'Value',
  'Multiple',
  'Fraction',
  'Month',
  'WeekDay',
]);
const NOT_LAST = new Set([
  'Adjective',
  'Comparative',
  'Superlative',
  'PastTense',
  'PresentTense',
  'Infinitive',
  'PhrasalVerb',
  'Gerund',
  'Participle',
]);
const NOT_FIRST = new Set(['PastTense', 'PresentTense', 'PhrasalVerb', 'Infinitive']);
const SINGLE_VERB = new Set(['Infinitive', 'PresentTense', 'PastTense', 'PhrasalVerb']);
const VERB_ENDING = /(?:ize|ise|ify)$/;

interface Candidate {
  key: string;
  words: string[];
  count: number;
  firstSentence: number;
  surfaces: Map<string, number>;
}

/**
 * Key phrases, best first: runs of content words between stop words and punctuation, cut into
 * 1–3-word phrases that look like noun phrases (by compromise's lexicon), scored by frequency,
 * position (earlier is better), length and, when given, rarity in the tenant's corpus. Singular
 * and plural forms count as one phrase, and a phrase mostly seen inside a longer chosen one is dropped.
 */
export function extractKeyPhrases(text: string, options: KeyPhraseOptions = {}): string[] {
  return scoreKeyPhrases(text, options).map((p) => p.name);
}

// Addresses and links spell domains ("example", "co", "uk") and user names, not topics.
const ADDRESSES =
  /\S+@\S+|\b(?:https?:\/\/|www\.)\S+|\b[\w-]+\.(?:com|org|net|io|co|example|gov|edu)(?:\.[a-z]{2})?\b\S*/gi;

/** Key phrases with confidences, best first (what `extractKeyPhrases` names). */
export function scoreKeyPhrases(input: string, options: KeyPhraseOptions = {}): KeyPhrase[] {
  const limit = Math.max(1, Math.min(options.limit ?? 8, 50));
  const text = input.replace(ADDRESSES, ' ');
  const lowercase = new Set<string>();
  for (const w of words(text)) if (w.text === w.lower) lowercase.add(w.lower);
  const sentences = splitSentences(text);
  const candidates = new Map<string, Candidate>();
  const language = writtenLanguage(text);
  sentences.forEach((sentence, sentenceIndex) => {
    for (const run of contentRuns(sentence.text, lowercase, language)) {
      for (const phrase of phrasesOf(run)) {
        {
          if (!run.proper && !looksLikeNounPhrase(phrase)) continue;
          const key = phrase.map(stem).join(' ');
          const surface = phrase.join(' ');
          let c = candidates.get(key);
          if (!c) {
            c = { key, words: phrase, count: 0, firstSentence: sentenceIndex, surfaces: new Map() };
            candidates.set(key, c);
          }
          c.count++;
          c.surfaces.set(surface, (c.surfaces.get(surface) ?? 0) + 1);
        }
      }
    }
  });

  const personWords = new Set((options.people ?? []).flatMap((p) => p.toLowerCase().split(/\s+/)));
  // Words of names that the document never writes in lower case: "stuttgart", "söhne", "mansouri".
  const nameWords = new Set(
    (options.names ?? [])
      .flatMap((p) => p.toLowerCase().split(/[^\p{L}\p{N}'’-]+/u))
      .filter((w) => w.length > 0 && !lowercase.has(w)),
  );
  const known = knownTagKeys(options.knownTags ?? []);
  const n = Math.max(1, sentences.length);
  const scored = [...candidates.values()]
    .filter((c) => c.words.length > 1 || c.count > 1 || candidates.size < 40 || known.has(c.key))
    .filter((c) => !c.words.every((w) => personWords.has(w)) && !c.words.some((w) => nameWords.has(w)))
    .map((c) => {
      const surface = known.get(c.key) ?? mostCommon(c.surfaces);
      const position = 1 + 0.6 * (1 - c.firstSentence / n);
      const length = [1, 1, 1.7, 2][c.words.length]!;
      // A phrase seen once is weak evidence, however long.
      const repeat = c.count > 1 ? 1 : c.words.length > 1 ? 0.55 : 0.7;
      const idf = options.documentFrequency ? corpusWeight(options.documentFrequency(surface)) : 1;
      // The tenant already files documents under this name: a strong hint that it fits.
      const tenant = known.has(c.key) ? 1.6 : 1;
      return { c, surface, score: (1 + Math.log(c.count)) * position * length * repeat * idf * tenant };
    })
    .sort((a, b) => b.score - a.score || a.c.firstSentence - b.c.firstSentence || a.surface.localeCompare(b.surface));

  const chosen: { key: string; count: number; surface: string; score: number }[] = [];
  for (const { c, surface, score } of scored) {
    if (chosen.length >= limit) break;
    const overlapping = chosen.find((s) => containsPhrase(s.key, c.key) || containsPhrase(c.key, s.key));
    if (overlapping && c.count <= overlapping.count * 2) continue;
    chosen.push({ key: c.key, count: c.count, surface, score });
  }
  const top = chosen[0]?.score ?? 1;
  return chosen.map((c) => ({
    name: c.surface,
    // Relative strength, lifted by repetition and by the tenant's own use of the name.
    confidence:
      Math.round(
        Math.min(0.95, 0.35 + 0.35 * (c.score / top) + (c.count > 1 ? 0.1 : 0) + (known.has(c.key) ? 0.1 : 0)) * 100,
      ) / 100,
  }));
}

/** The tenant's tag names by phrase key ("Vendor contracts" → key of "vendor contracts"), lower-cased. */
function knownTagKeys(names: string[]): Map<string, string> {
  const keys = new Map<string, string>();
  for (const name of names) {
    const lower = name.toLowerCase().trim();
    const parts = lower.split(/\s+/);
    if (parts.length === 0 || parts.length > 3 || !/\p{L}/u.test(lower)) continue;
    keys.set(parts.map(stem).join(' '), lower);
  }
  return keys;
}

interface Run {
  words: string[];
  /** Capitalised mid-sentence: a name, taken whole or not at all. */
  proper: boolean;
}

// Maximal runs of content words not broken by punctuation; names form runs of their own.
function contentRuns(sentence: string, lowercase: ReadonlySet<string>, language: Language | null): Run[] {
  const foreignStop = language ? FOREIGN_STOP_WORDS[language] : NO_WORDS;
  const runs: Run[] = [];
  let run: Run = { words: [], proper: false };
  let previousEnd = -1;
  // "Bill to: Meridian …": a field label is not what the document is about.
  const label = /^\s*[\p{L}][\p{L} ]{0,30}:(?:\s|$)/u.exec(sentence);
  const tokens = words(sentence).filter((t) => !label || t.start >= label[0].length);
  tokens.forEach((token, index) => {
    const gap = previousEnd >= 0 ? sentence.slice(previousEnd, token.start) : ' ';
    const content =
      token.lower.length >= 2 &&
      !STOP_WORDS.has(token.lower) &&
      !foreignStop.has(token.lower) &&
      !GENERIC.has(token.lower) &&
      !hasDigit(token.lower) &&
      !/'/.test(token.lower) &&
      !PARTICLES.has(token.lower) &&
      !/^\p{Lu}{1,3}$/u.test(token.text) &&
      !(lexiconTags(token.lower).some((t) => NEVER.has(t)) && /^\p{Ll}/u.test(token.text));
    // A capitalised word the document also writes in lower case is an ordinary word in a heading.
    const capitalised = /^\p{Lu}/u.test(token.text) && !isOnlyVerb(token.lower) && !lowercase.has(token.lower);
    // A sentence's first word is capitalised anyway: a name only if it is a given name or a name follows.
    const next = tokens[index + 1];
    // German capitalises every noun: there a capital says a name only of a given name.
    const proper =
      content &&
      capitalised &&
      (language !== 'de' || isFirstName(token.lower)) &&
      (index > 0 ||
        isFirstName(token.lower) ||
        (next !== undefined && /^\p{Lu}/u.test(next.text) && !STOP_WORDS.has(token.lower)));
    if (!content || !/^(?:\s+|-)$/.test(gap) || proper !== run.proper) {
      if (run.words.length > 0) runs.push(run);
      run = { words: [], proper };
    }
    if (content) run.words.push(token.lower);
    previousEnd = token.start + token.text.length;
  });
  if (run.words.length > 0) runs.push(run);
  return runs;
}

const VERB_TAGS = new Set(['Infinitive', 'PresentTense', 'PastTense', 'PhrasalVerb', 'Modal', 'Copula']);
function isOnlyVerb(lower: string): boolean {
  const tags = lexiconTags(lower);
  return tags.length > 0 && tags.every((t) => VERB_TAGS.has(t));
}

// Phrases of a run: every 1–3-word window of ordinary words. Names are entities, not topics.
function phrasesOf(run: Run): string[][] {
  if (run.proper) return [];
  const out: string[][] = [];
  for (let size = 1; size <= 3; size++) {
    for (let i = 0; i + size <= run.words.length; i++) out.push(run.words.slice(i, i + size));
  }
  return out;
}

function looksLikeNounPhrase(phrase: string[]): boolean {
  const first = phrase[0]!;
  const last = phrase[phrase.length - 1]!;
  if (phrase.length === 1 && (last.length < 3 || lexiconTags(last).some((t) => SINGLE_VERB.has(t)))) return false;
  for (const word of phrase) if (lexiconTags(word).some((t) => NEVER.has(t))) return false;
  if (lexiconTags(last).some((t) => NOT_LAST.has(t)) && !isNounToo(last)) return false;
  if (/(?:ly|ed)$/.test(last) || VERB_ENDING.test(last)) return false;
  if (phrase.length > 1 && lexiconTags(first).some((t) => NOT_FIRST.has(t)) && !isNounToo(first)) return false;
  return true;
}

// Words the lexicon knows as verbs but that are nouns as often ("report", "support", "plan").
function isNounToo(word: string): boolean {
  const tags = lexiconTags(word);
  return (
    tags.includes('Infinitive') && !tags.includes('PastTense') && word.length > 3 && !/(?:ate|ify|ize|ise)$/.test(word)
  );
}

function corpusWeight(df: number): number {
  const share = Number.isFinite(df) ? Math.min(1, Math.max(0, df)) : 0;
  return Math.log(2 / (share + 0.02));
}

function containsPhrase(outer: string, inner: string): boolean {
  return ` ${outer} `.includes(` ${inner} `);
}

function mostCommon(counts: Map<string, number>): string {
  let best = '';
  let bestCount = -1;
  for (const [value, count] of counts) {
    if (count > bestCount || (count === bestCount && value < best)) {
      best = value;
      bestCount = count;
    }
  }
  return best;
}

type Language = 'de' | 'fr' | 'es' | 'it' | 'pt' | 'nl';
const NO_WORDS: ReadonlySet<string> = new Set();
const wordSet = (s: string): ReadonlySet<string> => new Set(s.split(/\s+/).filter(Boolean));

// Function words of the other languages the corpus sees: a document written in one of them has
// its own "und", "für", "bis zum" that are no more a topic than "and", "for", "until".
const FOREIGN_STOP_WORDS: Record<Language, ReadonlySet<string>> = {
  de: wordSet(`der die das den dem des ein eine einer eines einem einen und oder aber für mit von vom zu zum zur bis bei
    beim im in ins an am auf aus nach vor über unter um durch gegen ohne ist sind war wird werden wurde wurden hat haben
    hatte sein ihr ihre ihren ihnen ihres wir uns unser unsere unseren sie es er ich du nicht auch noch nur so wie als
    dass daß diese dieser dieses diesem diesen jede jeder alle allen bitte sehr inkl zzgl abzgl ca bzw ggf usw etc
    vielen dank mit freundlichen grüßen sowie also dann hier dort wenn weil damit einer keine kein`),
  fr: wordSet(`le la les un une des du de d l et ou mais pour par avec sans sur sous dans en au aux ce cet cette ces
    est sont été être a ont avait nous vous ils elles il elle je tu ne pas plus que qui quoi dont où se sa son ses leur
    leurs notre nos votre vos merci cordialement veuillez ttc ht`),
  es: wordSet(`el la los las un una unos unas y o pero para por con sin sobre en de del al a es son fue ser está
    están ha han que quien cual donde se su sus nuestro nuestra nuestros vuestro usted ustedes nosotros no más muy
    gracias atentamente saludos iva`),
  it: wordSet(`il lo la i gli le un uno una e o ma per con senza su in di da del della dei delle al alla ai alle è sono
    stato essere ha hanno che chi dove si suo sua suoi nostro nostra vostro non più molto grazie cordiali saluti iva`),
  pt: wordSet(`o a os as um uma uns umas e ou mas para por com sem sobre em de do da dos das ao à é são foi ser está
    estão tem têm que quem onde se seu sua seus nosso nossa não mais muito obrigado obrigada atenciosamente`),
  nl: wordSet(`de het een en of maar voor met zonder op in van aan bij naar uit tot is zijn was wordt worden heeft hebben
    dat die dit deze wij we u uw ons onze niet ook nog te om als met vriendelijke groet groeten bedankt btw`),
};

// Words that a language writes often and English never does.
const LANGUAGE_MARKS: Record<Language, ReadonlySet<string>> = {
  de: wordSet('und der die das für mit nicht ist wir sie ihre ihnen bei vom zum zur auf dem den des eine einer'),
  fr: wordSet('le les et pour avec est nous vous une des du dans sur ce cette sont qui pas'),
  es: wordSet('el los las y para con es nosotros usted una del en que por su sus está'),
  it: wordSet('il gli e per con è sono che della delle dei una non alla'),
  pt: wordSet('os e para com é são que não uma da do dos das em seu sua'),
  nl: wordSet('het een en voor met niet wij u uw ons van op dat zijn deze'),
};

/** The language a text is written in, when it is one of the others the stop words know (not English). */
export function writtenLanguage(text: string): Language | null {
  const tokens = words(text.length > 20_000 ? text.slice(0, 20_000) : text).map((w) => w.lower);
  if (tokens.length === 0) return null;
  const english = tokens.filter((w) => STOP_WORDS.has(w)).length;
  let best: Language | null = null;
  let bestCount = 0;
  for (const [language, marks] of Object.entries(LANGUAGE_MARKS) as [Language, ReadonlySet<string>][]) {
    const count = tokens.filter((w) => marks.has(w)).length;
    if (count > bestCount) {
      best = language;
      bestCount = count;
    }
  }
  // Shared words ("in", "a", "die") count for English too: the other language must clearly lead.
  return best && bestCount >= 5 && bestCount >= 0.05 * tokens.length && bestCount > english * 0.8 ? best : null;
}
