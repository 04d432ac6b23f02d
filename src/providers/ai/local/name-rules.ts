import { STOP_WORDS } from '../text.ts';
import { CURRENCY_CODES } from './amounts.ts';
import {
  findCity,
  findCompanyName,
  findCountry,
  findRegion,
  foldName,
  isKnownCompanyWord,
  isPaymentNetwork,
} from './gazetteer.ts';
import {
  isCommonWord,
  isCountry,
  isFirstName,
  isKnownOrganization,
  isKnownPlace,
  isLastName,
  lexiconTags,
  ORG_WORDS,
  PLACE_WORDS,
} from './lexicon.ts';
import type { NameSpan, NameToken } from './name-spans.ts';
import {
  AREA_FIRST,
  CAPITALS_LEGAL_SUFFIXES,
  COMPASS,
  CONNECTORS,
  FAMILY_FIRST_NAMES,
  FOREIGN_OPENERS,
  GENERIC_CAPITALISED,
  LEGAL_PREFIXES,
  LEGAL_SUFFIXES,
  LOWER_CASE_HEADS,
  MORE_GIVEN_NAMES,
  OF_ORG_HEADS,
  ORG_CONTEXT_BEFORE,
  PARTICLES,
  PLACE_FIRST,
  REGION_ABBREVIATIONS,
  ROLE_WORDS,
  SPEECH_VERBS,
  STREET_FIRST,
  STREET_WORDS,
  STRONG_ORG_HEADS,
  WEAK_ORG_HEADS,
} from './name-words.ts';

/** A given name of compromise's lexicon or of the wider list of name-words.ts ("Kwabena", "Gurpreet"). */
export const isGivenName = (lower: string) => isFirstName(lower) || MORE_GIVEN_NAMES.has(lower);

/** What a span was recognised as. */
export interface Recognised {
  kind: 'person' | 'organization' | 'place';
  tokens: NameToken[];
  /** Higher wins when the same name is recognised as two kinds. */
  strength: number;
}

/** Facts about the whole document that the rules consult. */
export interface DocumentContext {
  /** Words the document also writes in lower case: ordinary words, not names. */
  lowercaseWords: ReadonlySet<string>;
  /** Line-start names followed by a colon, and how often ("Hannah Lee:" in a transcript). */
  speakers: ReadonlyMap<string, number>;
  /** Line numbers whose previous non-empty line is a letter closing ("Sincerely,"). */
  signatureLines: ReadonlySet<number>;
  /** Line numbers of short lines whose next non-empty line is a job title ("Export Director"): a signature or a heading's name. */
  aboveRoleLines: ReadonlySet<number>;
  /** The number of the first non-empty line when the line after it reads as a person's (a role, an e-mail address, a phone number): a CV's or letter's heading. */
  headingLine: number | null;
}

/** A legal form closing a name: "Ltd", "GmbH"; "AS" and "CC" only in capitals. */
export function isLegalSuffix(t: NameToken): boolean {
  const b = bare(t);
  return (
    LEGAL_SUFFIXES.has(b) ||
    t.text === 'ApS' ||
    /^(?:a\.s|s\.r\.o|a\.s\.a)\.$/.test(t.text) ||
    (CAPITALS_LEGAL_SUFFIXES.has(b) &&
      /^\p{Lu}[\p{Lu}./]*$/u.test(t.text) &&
      (t.acronym || /^(?:\p{Lu}\.)+$/u.test(t.text)))
  );
}

/** Nouns for kinds of organisation, followed by a name in apposition ("the auditors, Baker Tilly"). */
const ORG_KIND_NOUNS = new Set(
  `agency company firm supplier suppliers vendor contractor auditor auditors bank lender insurer insurers consultancy
  consultants publisher retailer manufacturer distributor startup charity nonprofit broker brokers carrier partner
  subsidiary regulator forwarder forwarders haulier hauliers integrator wholesaler`.split(/\s+/),
);

/** Kinds of business written before their name. */
const HEAD_FIRST = new Set([
  'hotel',
  'restaurant',
  'café',
  'cafe',
  'club',
  'museum',
  'gallery',
  'theatre',
  'theater',
  'clinic',
  'studio',
  'grupo',
  'groupe',
  'gruppo',
  'banco',
  'banca',
  'banque',
  'compañía',
  'companhia',
  'sociedad',
  'sociedade',
  'fundación',
  'fundação',
  'instituto',
  'inmobiliaria',
  'constructora',
  'hotels',
]);
/** "… as auditors", "… as its bankers": roles only a firm takes. */
const AS_FIRM =
  /^\s+(?:(?:is|are|was|were|will be)\s+)?(?:(?:acting|appointed|retained|engaged)\s+)?as\s+(?:the\s+|its\s+|our\s+|their\s+|a\s+|an\s+)?(?:[\p{Ll}-]+\s+)?(?:auditors?|bankers?|lenders?|insurers?|underwriters?|registrars?|bookrunners?|custodians?)\b/iu;

const MONTH_OR_DAY = /^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun)/;
/** Abbreviated months and weekdays as written ("Sept", "Thurs"): a short word only counts as one when it is one of these. */
const SHORT_MONTH_OR_DAY = new Set(
  'jan feb mar apr may jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun'.split(' '),
);
const NOT_A_NAME_SUFFIX =
  /(?:able|ible|tion|sion|ment|ness|ity|ing|ance|ence|ship|ive|ous|ful|less|ism|ogy|ics|ware|ary|ory|al)$/;

/** An ordinary word: a stop word, a generic capitalised term, a word the lexicon or the document uses in lower case. */
export function isCommon(lower: string, ctx: DocumentContext): boolean {
  const bare = lower.replace(/['’]s$/, '');
  return (
    STOP_WORDS.has(bare) ||
    GENERIC_CAPITALISED.has(bare) ||
    ROLE_WORDS.has(bare) ||
    ctx.lowercaseWords.has(bare) ||
    isCommonWord(bare) ||
    (MONTH_OR_DAY.test(bare) &&
      (lexiconTags(bare).includes('Month') || lexiconTags(bare).includes('WeekDay') || SHORT_MONTH_OR_DAY.has(bare)))
  );
}

const bare = (t: NameToken) => t.lower.replace(/['’]s$/, '').replace(/\./g, '');
// compromise's organisation words, less those that name products and generic things as often.
const NOT_HEADS = new Set(
  `enterprise data design development mobile office post power times community education care
  marketing comprehensive containers machines pizza coffee cafe restaurant hotel boys girls crew collective faction
  workers reserve investors international subsidiary`.split(/\s+/),
);
const isOrgWord = (word: string) => ORG_WORDS.has(word) && !NOT_HEADS.has(word);
/** German compounds closed by an organisation's word ("Volksbank", "Kreissparkasse", "Stadtwerke"). */
const COMPOUND_HEAD =
  /^\p{L}{3,}(?:bank|sparkasse|kasse|versicherung|werke|gesellschaft|stiftung|verband|genossenschaft)$/u;
export const isHead = (t: NameToken) =>
  STRONG_ORG_HEADS.has(bare(t)) ||
  WEAK_ORG_HEADS.has(bare(t)) ||
  isOrgWord(bare(t)) ||
  (t.capitalised && COMPOUND_HEAD.test(bare(t)));
const VERB_TAGS = new Set(['Infinitive', 'PresentTense', 'PastTense', 'Gerund', 'PhrasalVerb', 'Modal', 'Copula']);
const isOnlyVerb = (lower: string) => {
  const tags = lexiconTags(lower);
  return tags.length > 0 && tags.every((t) => VERB_TAGS.has(t));
};

/**
 * Drops leading words that are capitalised by grammar, not as names: ordinary words opening a
 * sentence ("This Agreement", "Contact Laura Chen") and verbs of title-case headlines
 * ("… to Acquire SolarPeak Technologies").
 */
export function trimSpan(span: NameSpan, ctx: DocumentContext): NameToken[] {
  const tokens = span.tokens.slice();
  while (tokens.length > 1 && isOnlyVerb(tokens[0]!.lower) && !isGivenName(tokens[0]!.lower)) tokens.shift();
  // "Harbour Properties DAC": a name closed by a legal form is the company's whole name.
  // "Coastal Marine University", "Regional Water Authority": so is one closed by a strong organisation head.
  const closing = tokens.length >= 2 ? bare(tokens[tokens.length - 1]!) : '';
  const legalName =
    tokens.length >= 2 &&
    (LEGAL_SUFFIXES.has(closing) || (STRONG_ORG_HEADS.has(closing) && tokens.every((t) => t.capitalised)));
  if (
    (span.sentenceStart || tokens[0]?.lower === 'the') &&
    !(legalName && tokens[0]!.lower !== 'the' && !STOP_WORDS.has(tokens[0]!.lower) && !isOnlyVerb(tokens[0]!.lower))
  ) {
    while (tokens.length > 0) {
      const t = tokens[0]!;
      const next = tokens[1];
      const keep =
        isGivenName(t.lower) ||
        isKnownPlace(t.lower) ||
        // "Kuala Lumpur", "San José": a place of several words starting with an ordinary one.
        placeOfWords(tokens.slice(0, 2)) ||
        placeOfWords(tokens.slice(0, 3)) ||
        placeOfWords(tokens.slice(0, 4)) ||
        isKnownOrganization(t.lower) ||
        (LEGAL_PREFIXES.has(t.text) && next?.capitalised === true) ||
        // "Bank of Ireland", "University of Leeds" at a sentence's start: the head is the name's.
        (OF_ORG_HEADS.has(bare(t)) && next?.lower === 'of' && tokens[2]?.capitalised === true) ||
        (isKnownCompanyWord(bare(t)) && !ctx.lowercaseWords.has(bare(t))) ||
        (PARTICLES.has(t.lower) && next !== undefined) ||
        // "Slack Technologies": without the first word only a head would be left.
        (next !== undefined &&
          tokens.length === 2 &&
          t.capitalised &&
          !STOP_WORDS.has(t.lower) &&
          (isHead(next) || LEGAL_SUFFIXES.has(bare(next))));
      if (keep || !(isCommon(t.lower, ctx) || t.lower === 'dear' || FOREIGN_OPENERS.has(t.lower))) break;
      tokens.shift();
    }
  }
  while (
    tokens.length > 0 &&
    !tokens[tokens.length - 1]!.capitalised &&
    !LEGAL_SUFFIXES.has(bare(tokens[tokens.length - 1]!)) &&
    !LOWER_CASE_HEADS.has(tokens[tokens.length - 1]!.text) &&
    !isLegalSuffix(tokens[tokens.length - 1]!)
  )
    tokens.pop();
  return tokens;
}

/** Several capitalised words that together name a place the lexicon or the city gazetteer knows. */
export function placeOfWords(tokens: NameToken[]): boolean {
  if (tokens.length < 2 || tokens.some((t) => !t.capitalised)) return false;
  const key = tokens.map(bare).join(' ');
  return isKnownPlace(key) || findCity(key) !== null;
}

/** A word that can be part of a person's name. */
function nameLike(t: NameToken, ctx: DocumentContext, allowCommon: boolean, cued = false): boolean {
  if (PARTICLES.has(t.text) || NAME_PARTICLES.has(t.text) || isInitial(t)) return true;
  if (!t.capitalised || t.acronym || /\d|&/.test(t.text) || t.text.length < 2) return false;
  const b = bare(t);
  if (isHead(t) || STREET_WORDS.has(b) || ROLE_WORDS.has(b) || GENERIC_CAPITALISED.has(b) || LEGAL_SUFFIXES.has(b))
    return false;
  // "Edith Lancaster": after a given name a town's name may be a family name (a country's may not).
  if (
    isKnownPlace(b) &&
    !isGivenName(b) &&
    !isLastName(b) &&
    !(allowCommon && findCountry(b) === null && !isCountry(b))
  )
    return false;
  if (allowCommon || isGivenName(b) || isLastName(b)) return true;
  // With a cue (a role after it, a field label), "Bilal" or "Kamal" may end like an English noun.
  return !isCommon(b, ctx) && (cued || !NOT_A_NAME_SUFFIX.test(b));
}

/** Recognises a trimmed span as a person, organisation or place; null when no rule is sure. */
export function recognise(span: NameSpan, tokens: NameToken[], ctx: DocumentContext): Recognised[] {
  if (tokens.length === 0) return [];
  const lowers = tokens.map(bare);
  const phrase = lowers.join(' ');
  const last = tokens[tokens.length - 1]!;
  const after = span.after;
  const before = span.before;

  // Stock exchange of a ticker: "(NYSE: VRDN)".
  if (tokens.length === 1 && last.acronym && /\(\s*$/.test(before) && /^\s*:\s*[A-Z][A-Z.]{0,5}\s*\)/.test(after)) {
    return [{ kind: 'organization', tokens, strength: 3 }];
  }
  // "FOB İstanbul", "EXW Shenzhen": a trade term, then the place it names.
  const term = tokens.findIndex((t) => INCOTERMS.has(t.lower) && t.acronym);
  if (term >= 0 && term < tokens.length - 1) {
    const rest = tokens.slice(term + 1);
    return recognise({ ...span, tokens: rest, before: `${tokens[term]!.text} `, sentenceStart: false }, rest, ctx);
  }
  // "Sourcing Manager Türkiye", "Country Director Kenya": a role, then the country or city it covers.
  const role = tokens.findIndex((t) => ROLE_WORDS.has(bare(t)));
  if (role >= 0 && role < tokens.length - 1 && tokens.length - role <= 3) {
    const rest = tokens.slice(role + 1);
    const key = rest.map(bare).join(' ');
    if (
      rest.every((t) => t.capitalised) &&
      (findCountry(key) !== null || (findCity(key)?.population ?? 0) >= LARGE_CITY)
    )
      return [{ kind: 'place', tokens: rest, strength: 2 }];
  }
  // "PT Boga Nusantara Sejahtera", "UAB …", "SIA …": a legal form written before the name.
  if (
    tokens.length >= 2 &&
    tokens.length <= 6 &&
    LEGAL_PREFIXES.has(tokens[0]!.text) &&
    tokens.slice(1).every((t) => t.capitalised || PARTICLES.has(t.lower) || CONNECTORS.has(t.lower)) &&
    tokens.slice(1).some((t) => t.capitalised && !t.acronym)
  )
    return [{ kind: 'organization', tokens, strength: 4 }];
  // "Región de Antofagasta", "Province of Limpopo": an area's word, "of", then its name.
  if (
    tokens.length >= 3 &&
    tokens.length <= 5 &&
    AREA_FIRST.has(bare(tokens[0]!)) &&
    /^(?:of|de|del|di|du|do|da)$/.test(tokens[1]!.lower) &&
    tokens.slice(2).every((t) => t.capitalised && !isHead(t))
  )
    return [{ kind: 'place', tokens, strength: 2.5 }];
  // "Quận Hai Bà Trưng", "Tỉnh Bình Dương": a district's or province's word, then its name.
  if (tokens.length >= 2 && PLACE_FIRST.has(bare(tokens[0]!)))
    return [{ kind: 'place', tokens: tokens.slice(1), strength: 2.5 }];
  // "Calle Colón", "Phố Huế", "Karl Johans gate": a street, not a name.
  if (STREET_FIRST.has(bare(tokens[0]!)) && tokens.length >= 2) return [];
  // "Av. John Boyd Dunlop", "Av. das Nações Unidas", "Rua da Consolação": a street named after a person or a thing.
  if (STREET_BEFORE.test(before.slice(-24))) return [];
  if (/^\s+(?:gate|gata|vei|veien|vej|gade|straat|laan|weg|straße|strasse|street|road|avenue)\b/u.test(after))
    return [];
  // "Kuehne+Nagel", "AT&T": letters joined by a plus or an ampersand inside one word are a company's ("R&D" is not).
  if (tokens.length === 1 && /\p{L}[+&]\p{L}/u.test(last.text) && last.text.replace(/[^\p{L}]/gu, '').length >= 4)
    return [{ kind: 'organization', tokens, strength: 2.5 }];
  // "Takeshi Yamamoto of Murata Manufacturing": a person's name, then where the person works.
  const of = tokens.findIndex((t) => t.lower === 'of');
  // "your project manager, Pádraig Mac Cárthaigh of Quay Project Services": a name shaped only as names are, or after a role.
  const leftCue =
    isGivenName(bare(tokens[0]!)) ||
    tokens.slice(0, Math.max(0, of)).some((t) => NAME_SHAPE.test(t.text)) ||
    /\b(?:manager|director|partner|officer|head|consultant|engineer|lead|chair|representative),\s*$/i.test(span.before);
  if (of >= 2 && of <= 4 && of < tokens.length - 1 && leftCue) {
    const left = tokens.slice(0, of);
    const right = tokens.slice(of + 1);
    const person = recognisePerson({ ...span, tokens: left, after: ' ' }, left, ctx);
    if (person && person.strength >= 1.5 && right.every((t) => t.capitalised)) {
      const where = recognise(
        { ...span, tokens: right, before: ' of ', sentenceStart: false, honorific: null },
        right,
        ctx,
      );
      return [
        person,
        ...(where.length > 0
          ? where
          : plausibleOrganization(right, ctx) && !placeOfWords(right)
            ? [{ kind: 'organization' as const, tokens: right, strength: 1.5 }]
            : []),
      ];
    }
  }
  if (tokens.length >= 2 && isLegalSuffix(last)) {
    // "Grupo Traxión and Ryder System, Inc.": a company named on its own before "and" is a second company.
    const and = tokens.findIndex((t) => t.lower === 'and');
    if (and > 0 && and < tokens.length - 2) {
      const left = tokens.slice(0, and);
      const first = recognise({ ...span, tokens: left, after: ' and ' }, left, ctx);
      // … or a person before it ("between Chidi Okafor and Acme Ltd.").
      const firm = (r: Recognised) =>
        (r.kind === 'organization' && r.strength >= 2.5) || (r.kind === 'person' && r.strength >= 1);
      if (first.length > 0 && first.every(firm))
        return [...first, { kind: 'organization', tokens: tokens.slice(and + 1), strength: 4 }];
      // "[4,2 Mkr], Peab [3 950 000 SEK] and Takbyggarna i Uppsala AB": a currency's code ends an amount, not a name.
      if (left.every((t) => CURRENCY_CODES.has(t.text)))
        return [{ kind: 'organization', tokens: tokens.slice(and + 1), strength: 4 }];
    }
    // "Accepted for Fernhill Software Limited", "Signed by Acme Ltd": the company follows the verb.
    if (
      tokens.length >= 4 &&
      /ed$/.test(tokens[0]!.lower) &&
      (tokens[1]!.lower === 'for' || tokens[1]!.lower === 'by')
    ) {
      return recognise({ ...span, tokens: tokens.slice(2) }, tokens.slice(2), ctx);
    }
    // "Resolution of the Board of Directors of Quillfield Software Limited": the company is the last part.
    const lastOf = tokens.map((t) => t.lower).lastIndexOf('of');
    const tail = lastOf > 0 ? tokens.slice(lastOf + 1) : tokens;
    const headBefore = lastOf > 0 && isHead(tokens[lastOf - 1]!) && OF_ORG_HEADS.has(bare(tokens[lastOf - 1]!));
    return [{ kind: 'organization', tokens: tail.length >= 2 && !headBefore ? tail : tokens, strength: 4 }];
  }
  // "Công ty TNHH Nội Thất Sông Đà", "Công ty Cổ phần …": Vietnamese for "company" opens the name.
  if (tokens.length >= 3 && foldName(`${tokens[0]!.text} ${tokens[1]!.text}`) === 'cong ty')
    return [{ kind: 'organization', tokens, strength: 3 }];
  // "Mason Hayes & Curran", "Aluko & Oyebode": names joined by an ampersand are a firm's.
  const amp = tokens.findIndex((t) => t.text === '&' || t.text === '+');
  if (amp > 0 && amp < tokens.length - 1 && tokens.length <= 6 && !tokens.some((t) => ROLE_WORDS.has(bare(t)))) {
    const sides = [tokens.slice(0, amp), tokens.slice(amp + 1)];
    const words = (ts: NameToken[]) =>
      ts.every((t) => t.capitalised || CONNECTORSISH.has(t.lower)) && !ts.some((t) => GENERIC_CAPITALISED.has(bare(t)));
    const named = (ts: NameToken[]) =>
      ts.some((t) => t.capitalised && !isHead(t) && (!isCommon(bare(t), ctx) || t.acronym));
    // "Ernst & Young": one distinctive side is enough; "Research & Development", "Health & Safety" have none.
    if (sides.every(words) && sides.some(named)) return [{ kind: 'organization', tokens, strength: 2.5 }];
  }
  // "Hotel Alpenrose", "Café Central", "Grupo Ferrovial", "Banco de la Nación Argentina": a kind of
  // business followed by its name (particles inside it, as Romance languages write them).
  if (tokens.length >= 2 && tokens.length <= 6 && HEAD_FIRST.has(bare(tokens[0]!))) {
    const rest = tokens.slice(1);
    const inner = (t: NameToken, i: number) =>
      i < rest.length - 1 && (PARTICLES.has(t.lower) || CONNECTORS.has(t.lower));
    if (
      rest.every((t, i) => inner(t, i) || (t.capitalised && !STREET_WORDS.has(bare(t)))) &&
      (tokens.length <= 3 && rest.every((t) => t.capitalised)
        ? rest.every((t) => !isCommon(bare(t), ctx))
        : rest.some((t) => !t.capitalised) && rest.some((t) => t.capitalised && !isCommon(bare(t), ctx)))
    ) {
      return [{ kind: 'organization', tokens, strength: 3 }];
    }
  }
  // "appointed Grant Thornton as auditors": a name in the role of a firm, whatever its words look like.
  if (AS_FIRM.test(after) && tokens.every((t) => t.capitalised)) return [{ kind: 'organization', tokens, strength: 3 }];
  if (isKnownOrganization(phrase) && !isPaymentNetwork(phrase)) return [{ kind: 'organization', tokens, strength: 3 }];
  const company = knownCompanyName(span, tokens, ctx);
  if (company) return company;
  // "Maersk", "KPMG East Africa", "DB Schenker", "Microsoft Ireland Operations": a well-known
  // company's word makes the name a company's, with what qualifies it (a region, an acronym, a head).
  const known = tokens.findIndex(
    (t) =>
      t.capitalised &&
      (t.acronym || bare(t).length >= 4) &&
      isKnownCompanyWord(bare(t)) &&
      !ctx.lowercaseWords.has(bare(t)),
  );
  const placeAsWhole = isKnownPlace(phrase) || findCountry(phrase) !== null || findCity(phrase) !== null;
  // "Nguyễn Thị Hồng Nhung": a person's name whose syllable a company also uses is still a person's.
  const personShaped = tokens.filter((t) => NAME_SHAPE.test(t.text)).length >= 2 || span.honorific !== null;
  if (
    known >= 0 &&
    !placeAsWhole &&
    !personShaped &&
    !STREET_WORDS.has(bare(last)) &&
    tokens.length <= 5 &&
    tokens.every((t, i) => i === known || qualifiesCompany(t, ctx))
  ) {
    return [{ kind: 'organization', tokens, strength: 3 }];
  }

  // "Hartford Public Library and Greenway Food Bank", "Arizona and Monterrey, Mexico": two names.
  const and = tokens.findIndex((t) => t.lower === 'and');
  // … but "University of Science and Technology", "Ministry of Education and Research",
  // "Department of Planning and Investment": the subjects of one body, "and" joining its last two words.
  const ofAt = tokens.findIndex((t) => t.lower === 'of');
  if (
    and === tokens.length - 2 &&
    ofAt > 0 &&
    and === ofAt + 2 &&
    OF_ORG_HEADS.has(bare(tokens[ofAt - 1]!)) &&
    [tokens[ofAt + 1]!, tokens[and + 1]!].every(
      (t) =>
        t.capitalised &&
        !t.acronym &&
        !isKnownPlace(bare(t)) &&
        findCity(bare(t)) === null &&
        findCompanyName([t.text]) === null &&
        !STRONG_ORG_HEADS.has(bare(t)),
    )
  )
    return [{ kind: 'organization', tokens, strength: 3 }];
  if (and > 0 && and < tokens.length - 1) {
    const left = tokens.slice(0, and);
    const right = tokens.slice(and + 1);
    const text = (ts: NameToken[]) => ts.map((t) => t.text).join(' ');
    const parts = [
      ...recognise({ ...span, tokens: left, after: ` and ${text(right)}${span.after}` }, left, ctx),
      ...recognise(
        { ...span, tokens: right, before: `${span.before}${text(left)} and `, sentenceStart: false, honorific: null },
        right,
        ctx,
      ),
    ];
    if (parts.length > 0) return parts;
  }
  if (looksLikeOrganization(tokens, ctx)) return [{ kind: 'organization', tokens, strength: 3 }];

  // "Việt Nam", "Hà Nội", "Tamil Nadu": a country, region or large city the gazetteers know, unless a title or greeting names a person.
  const gazetteer = gazetteerPlace(span, tokens, ctx);
  if (gazetteer) return [gazetteer];

  const person = recognisePerson(span, tokens, ctx);
  if (person) return [person];

  const places = recognisePlaces(span, tokens, ctx);
  if (places.length > 0) return places;

  // "the marketing agency, Bright Orchard Creative": a name in apposition to a kind of organisation.
  const kind =
    /\b(?:the|our|their|its|your|his|her|a|an)\s+(?:[\p{Ll}-]+\s+)?([\p{L}]+),?\s+$|\b(?:the|our|their|its|your|his|her|a|an)\s+(?:[\p{Ll}-]+\s+)?([\p{L}]+),$/iu
      .exec(before)
      ?.slice(1)
      .find(Boolean)
      ?.toLowerCase();
  const named = tokens.every((t) => t.capitalised && !t.acronym);
  if (kind && ORG_KIND_NOUNS.has(kind) && tokens.length <= 4 && named && !isGivenName(bare(tokens[0]!))) {
    return [{ kind: 'organization', tokens, strength: 1.5 }];
  }

  // An unknown distinctive name right after "with", "from", "between", …: most often a company.
  const previousWord = /([\p{L}]+)\s+(?:the\s+)?$/u.exec(before)?.[1]?.toLowerCase();
  if (previousWord && ORG_CONTEXT_BEFORE.has(previousWord) && tokens.length <= 3) {
    const distinctive = tokens.every(
      (t) =>
        t.capitalised &&
        !t.acronym &&
        !isCommon(bare(t), ctx) &&
        !isGivenName(bare(t)) &&
        !isKnownPlace(bare(t)) &&
        !NOT_A_NAME_SUFFIX.test(bare(t)) &&
        !isPaymentNetwork(bare(t)) &&
        !lexiconTags(bare(t)).includes('Demonym'),
    );
    // "at Unit 4", "on Plot 12": a numbered part of a place, not a company.
    // Not after "at" or "from": there an unknown name is as often a place ("diverted from Yantian", "at Kwai Chung").
    const placeLikely = previousWord === 'at' || previousWord === 'from';
    // "a call with Wanjiru Kamau", "between Chidi Okafor and …": two or three unknown words after "with", none a company's word, read as a person's name.
    const personAfterWith =
      (previousWord === 'with' || previousWord === 'between') &&
      tokens.length >= 2 &&
      !isHead(tokens[tokens.length - 1]!) &&
      tokens.every((t) => !isKnownCompanyWord(bare(t)) && /^\p{Lu}\p{Ll}+$/u.test(t.text));
    if (distinctive && personAfterWith) return [{ kind: 'person', tokens, strength: 1 }];
    if (distinctive && !placeLikely && !/^\s*(?:no\.?\s*)?\d/i.test(after))
      return [{ kind: 'organization', tokens, strength: 1 }];
    // "manufactured by KONE", "audited by KPMG": an unknown acronym that made, supplied or did something.
    const t = tokens[0]!;
    if (
      tokens.length === 1 &&
      /\b(?:manufactured|supplied|made|built|audited|operated|provided|installed|serviced|maintained|acquired|owned|issued|insured|developed|published|distributed|awarded|funded|sponsored|run|led)\s+by\s+$/iu.test(
        before,
      ) &&
      /^\p{Lu}{3,6}$/u.test(t.text) &&
      !isCommon(bare(t), ctx) &&
      !isKnownPlace(bare(t)) &&
      !CURRENCY_CODES.has(t.text) &&
      !/^\s*[-\d]/.test(after)
    )
      return [{ kind: 'organization', tokens, strength: 1 }];
  }
  return [];
}

/**
 * A whole span the gazetteers know as a country, a first-level region or a city of 500,000 people or
 * more. Names that are also given or family names or ordinary words ("Georgia", "Victoria", "Delta")
 * need a place's context; a title or greeting before the span makes it a person.
 */
function gazetteerPlace(span: NameSpan, tokens: NameToken[], ctx: DocumentContext): Recognised | null {
  if (span.honorific || /\b(?:dear|hi|hello|hey)\s*$/i.test(span.before) || tokens.length > 4) return null;
  // "Dubai, UAE", "Houston, USA": a country written as its initials.
  if (tokens.length === 1 && tokens[0]!.acronym && tokens[0]!.text.length >= 3 && findCountry(tokens[0]!.text) !== null)
    return { kind: 'place', tokens, strength: 2.5 };
  if (
    tokens.some((t) => !t.capitalised || t.acronym || ROLE_WORDS.has(bare(t)) || STREET_WORDS.has(bare(t)) || isHead(t))
  )
    return null;
  const lowers = tokens.map(bare);
  const phrase = lowers.join(' ');
  const named =
    lowers.some((w) => isGivenName(w) || isLastName(w)) ||
    isCommon(phrase, ctx) ||
    (tokens.length === 1 && NOT_A_NAME_SUFFIX.test(phrase));
  const context = placeContext(span.before) || /\b(?:from|via|across|throughout)\s+$/i.test(span.before);
  const place = (strength: number): Recognised => ({ kind: 'place', tokens, strength });
  // "Sri Lanka", "Costa Rica": a country's name of several words is nobody's, whatever its first word.
  if (findCountry(phrase) !== null && (!named || context || tokens.length > 1)) return place(2.5);
  if (findRegion(phrase) !== null && (!named || context) && (tokens.length > 1 || context || !isCommon(phrase, ctx)))
    return place(2);
  const city = findCity(phrase);
  if (city !== null && city.population >= LARGE_CITY && (!named || context)) return place(2);
  return null;
}

/** What may stand beside a well-known company's name in a longer name of it: "KPMG East Africa", "DHL Supply Chain Vietnam", "Deloitte LLP". */
function qualifiesKnownName(t: NameToken): boolean {
  const b = bare(t);
  // "Hapag-Lloyd USD 2,450": a currency code is the start of an amount, not part of the name.
  if (CURRENCY_CODES.has(t.text)) return false;
  return (
    t.acronym ||
    t.lower === '&' ||
    isKnownPlace(b) ||
    findCountry(b) !== null ||
    findCity(b) !== null ||
    COMPASS.has(b) ||
    isHead(t) ||
    LEGAL_SUFFIXES.has(b) ||
    b === 'supply' ||
    b === 'chain'
  );
}

/**
 * A span holding a well-known company's whole name (company-names.ts): the span, when what else it
 * holds qualifies the name ("KPMG East Africa", "Huawei Technologies Nigeria"); the name alone, when
 * the span goes on with a product, a branch or a place ("Oracle Fusion", "Premier Inn Kings Cross"),
 * the rest read on its own. Names made only of ordinary words ("Premier Inn") count only as a whole
 * span that does not open a sentence. Not after a title, nor for a name that reads as a person's
 * ("Nguyễn Thị Hồng Nhung") or a word the document writes in lower case.
 */
function knownCompanyName(span: NameSpan, tokens: NameToken[], ctx: DocumentContext): Recognised[] | null {
  // "KPMG East Africa and EY": two names, each read on its own by the "and" rule.
  if (span.honorific || tokens.length > 8 || tokens.some((t) => t.lower === 'and')) return null;
  const match = findCompanyName(tokens.map((t) => t.text));
  if (!match) return null;
  const named = tokens.slice(match.start, match.end);
  const before = tokens.slice(0, match.start);
  const after = tokens.slice(match.end);
  if (named.length === 1) {
    const t = named[0]!;
    // "Stk" is not "STK": a short name counts only written in capitals, and none the document writes in lower case.
    if (ctx.lowercaseWords.has(bare(t)) || (bare(t).length <= 3 && !t.acronym)) return null;
    if (tokens.filter((w) => NAME_SHAPE.test(w.text)).length >= 2) return null;
    // "Teodor Brannigal, Head of Customer Operations": a brand's word in a name a person's cue follows.
    const personCue =
      roleAfter(span.after) ||
      ctx.aboveRoleLines.has(span.line) ||
      ctx.signatureLines.has(span.line) ||
      /^\s*<[^>\s]+@/.test(span.after);
    if (personCue && tokens.length > 1) return null;
    // "the meeting in Milano": a brand named after a city, where the sentence wants a place.
    if (
      tokens.length === 1 &&
      (findCity(bare(t)) !== null || findCountry(bare(t)) !== null) &&
      placeContext(span.before)
    )
      return null;
  }
  if (named.some((t) => !t.capitalised && !CONNECTORSISH.has(t.lower) && !LEGAL_SUFFIXES.has(bare(t)))) return null;
  if (match.weak && (before.length > 0 || after.length > 0 || span.sentenceStart)) return null;
  // Before the name only an acronym qualifies it ("DB Schenker"); "Ngozi Eze" is a person with a brand's word.
  if (!before.every((t) => t.acronym)) return null;
  // "Oracle's Ottawa data centre": the possessive closes the company's name.
  if (after.length > 0 && /['’]s$/.test(named[named.length - 1]!.text))
    return [{ kind: 'organization', tokens: named, strength: 2.4 }];
  const whole: Recognised[] = [{ kind: 'organization', tokens, strength: 3 }];
  // "KPMG East Africa": a region of several words qualifies it as well.
  if (after.every(qualifiesKnownName) || isHead(tokens[tokens.length - 1]!) || placeOfWords(after)) return whole;
  if (STREET_WORDS.has(bare(tokens[tokens.length - 1]!))) return null;
  // "Bajaj Finserv": one more word no lexicon knows is the name's; "Oracle Fusion", "Premier Inn Kings Cross": a product or a branch.
  if (
    after.length === 1 &&
    !isCommon(bare(after[0]!), ctx) &&
    !isKnownPlace(bare(after[0]!)) &&
    findCity(bare(after[0]!)) === null &&
    !isGivenName(bare(after[0]!))
  )
    return whole;
  const text = (ts: NameToken[]) => ts.map((t) => t.text).join(' ');
  return [
    { kind: 'organization', tokens: named, strength: 2.4 },
    ...recognise(
      { ...span, tokens: after, before: `${span.before}${text(named)} `, sentenceStart: false, honorific: null },
      after,
      ctx,
    ),
  ];
}

/** A word that may stand beside a company's name in its full name: an acronym, a place, a head, a legal form. */
function qualifiesCompany(t: NameToken, ctx: DocumentContext): boolean {
  const b = bare(t);
  return (
    t.acronym ||
    t.lower === '&' ||
    isKnownPlace(b) ||
    findCountry(b) !== null ||
    COMPASS.has(b) ||
    isHead(t) ||
    LEGAL_SUFFIXES.has(b) ||
    (t.capitalised && !isCommon(b, ctx) && !isGivenName(b))
  );
}

function looksLikeOrganization(tokens: NameToken[], ctx: DocumentContext): boolean {
  if (tokens.some((t) => ROLE_WORDS.has(bare(t)))) return false;
  // "Baggot Street Upper", "Connaught Road Central": an address, whatever follows the street word.
  // … but "Nationwide Building Society": a street word inside a name a strong head closes.
  const lastWord = bare(tokens[tokens.length - 1]!);
  const headClosed = STRONG_ORG_HEADS.has(lastWord) && !STREET_WORDS.has(lastWord);
  if (!headClosed && tokens.some((t, i) => i > 0 && STREET_WORDS.has(bare(t)) && t.capitalised)) return false;
  const ofAt = tokens.findIndex((t) => t.lower === 'of' || t.lower === 'for');
  const headPart = ofAt > 0 ? tokens.slice(0, ofAt) : tokens;
  if (ofAt > 0 && headPart.length === 1) return OF_ORG_HEADS.has(bare(headPart[0]!)) && tokens.length > ofAt + 1;
  if (headPart.length < 2) return false;
  // "Kreissparkasse Heilbronn", "Stadtwerke Bochum": a compound organisation word and the name it is known by.
  if (headPart.every((t) => t.capitalised && !t.acronym) && headPart.some((t) => COMPOUND_HEAD.test(bare(t))))
    return true;
  let head = bare(headPart[headPart.length - 1]!);
  // "Arts Council England", "Health Canada": an organisation named with its country or region.
  const placeHead = !isHead(headPart[headPart.length - 1]!) && (findCity(head) !== null || findRegion(head) !== null);
  if (headPart.length >= 2 && (isCountry(head) || lexiconTags(head).includes('Region') || placeHead)) {
    const before = headPart[headPart.length - 2]!;
    if (isHead(before)) return true;
    head = bare(before);
  }
  if (STREET_WORDS.has(head)) return false;
  // "Claims Department", "Materials Management Department": a part of the writer's organisation, not one.
  if (head === 'department' && ofAt < 0)
    return headPart.slice(0, -1).some((t) => t.capitalised && !isCommon(bare(t), ctx) && !isHead(t) && !t.acronym);
  if (STRONG_ORG_HEADS.has(head)) return true;
  if (WEAK_ORG_HEADS.has(head) || isOrgWord(head)) {
    // "Intellectual Property", "Perioperative Services": an adjective's ending is no name.
    return headPart
      .slice(0, -1)
      .some(
        (t) =>
          t.capitalised &&
          !isCommon(bare(t), ctx) &&
          !isHead(t) &&
          (t.acronym || !/(?:al|ive|ic|ous|ary)$/.test(bare(t))),
      );
  }
  return false;
}

/** Whether a value a field label calls a person looks like a name ("Olivia Brooks", not "Accounts Payable"). */
export function plausiblePerson(tokens: NameToken[], ctx: DocumentContext): boolean {
  const count = tokens.filter((t) => !PARTICLES.has(t.text) && !NAME_PARTICLES.has(t.text)).length;
  if (count < 2 || count > 4 || tokens.some((t) => CONNECTORSISH.has(t.lower)) || endsWithInitial(tokens)) return false;
  if (isGivenName(bare(tokens[0]!))) return tokens.slice(1).every((t) => nameLike(t, ctx, true));
  if (tokens.every((t) => nameLike(t, ctx, false) || isLastName(bare(t)))) return true;
  // "Chan Tai Man", "Tomás Ó Briain": a field says it is a person; its words may look ordinary
  // ("man") as long as one of them does not.
  return (
    tokens.every((t) => nameLike(t, ctx, true)) &&
    tokens.some((t) => !isCommon(bare(t), ctx) || NAME_SHAPE.test(t.text))
  );
}

/**
 * An affiliation after a person: "Owen Jarvis (Network Rail)", "Ian McGregor, Ocado Technology"
 * at the end of a line. Not a role ("(Chair)", ", Managing Director"), a person or a place.
 */
export function looksLikeAffiliation(span: NameSpan, tokens: NameToken[], ctx: DocumentContext): boolean {
  if (tokens.length === 0 || tokens.length > 5 || !tokens[0]!.capitalised) return false;
  if (tokens.some((t) => ROLE_WORDS.has(bare(t)) || GENERIC_CAPITALISED.has(bare(t)))) return false;
  if (isGivenName(bare(tokens[0]!)) || (tokens.length === 1 && isKnownPlace(bare(tokens[0]!)))) return false;
  if (!/^\s*(?:\)|[;.]?\s*$)/.test(span.after.slice(0, 3)) && !/^\s*[),;]/.test(span.after)) return false;
  return tokens.some((t) => !isCommon(bare(t), ctx) || t.acronym || isHead(t));
}

/** Whether a value a field label calls an organisation looks like a name ("Okta", not "All staff"). */
export function plausibleOrganization(tokens: NameToken[], ctx: DocumentContext): boolean {
  if (tokens.length === 0 || tokens.length > 6 || !tokens[0]!.capitalised) return false;
  return tokens.some((t) => t.capitalised && (!isCommon(bare(t), ctx) || isHead(t)));
}

function recognisePerson(span: NameSpan, tokens: NameToken[], ctx: DocumentContext): Recognised | null {
  const lowers = tokens.map(bare);
  // "Lakshmi Residency", "Ashanti Region", "Technical Documentation": a word of a place or an abstract noun ends no person's name.
  if (tokens.length >= 2 && notNameEnd(lowers[lowers.length - 1]!)) return null;
  const count = tokens.filter((t) => !PARTICLES.has(t.text) && !NAME_PARTICLES.has(t.text)).length;
  if (count === 0 || count > 4 || tokens.some((t) => CONNECTORSISH.has(t.lower)) || endsWithInitial(tokens))
    return null;
  const person = (strength: number): Recognised => ({ kind: 'person', tokens, strength });
  // "Dear Mr. Alvarez", "Hi Declan,": a greeting names the reader.
  const dear = /\b(?:dear|hi|hello|hey)\s*$/i.test(span.before) || GREETINGS.has(span.tokens[0]?.lower ?? '');

  if ((span.honorific || dear) && tokens.every((t) => nameLike(t, ctx, true))) return person(3);
  // "Pádraig Ó Conghaile <poconghaile@…>": a name before an e-mail address in angle brackets.
  if (/^\s*<[^>\s]+@[^>\s]+>/.test(span.after) && tokens.every((t) => nameLike(t, ctx, true, true))) return person(2.5);
  // A name alone on its line above a job title ("Nguyễn Thị Hồng Nhung" / "Export Director"), or a
  // CV's or letter's heading above a role or contact line.
  const aloneOnLine = span.after.trim() === '' && /^[\s\-*•·>]*$/.test(span.before);
  const cuedLine = ctx.aboveRoleLines.has(span.line) || ctx.headingLine === span.line;
  if (
    aloneOnLine &&
    cuedLine &&
    count >= 2 &&
    // "Nguyễn Văn An": beside words shaped only as names are, a short one may be an English word too.
    tokens.every(
      (t) =>
        nameLike(t, ctx, tokens.filter((w) => NAME_SHAPE.test(w.text)).length >= 2, true) || NAME_PARTICLES.has(t.text),
    ) &&
    !placeOfWords(tokens)
  ) {
    return person(2);
  }
  // "LEUNG WING SZE" heading a CV: its words may be English ones as long as one is not.
  if (aloneOnLine && ctx.headingLine === span.line && plausiblePerson(tokens, ctx) && !placeOfWords(tokens))
    return person(2);
  if (count < 2) return null;
  // "in Kon Tum": a given name after "in" is a place's first word unless a family name the lexicon knows follows.
  const placeFirst = placeContext(span.before) && !isLastName(lowers[lowers.length - 1]!);
  if (isGivenName(lowers[0]!) && !placeFirst && tokens.slice(1).every((t) => nameLike(t, ctx, true))) return person(2);
  if (
    count <= 3 &&
    isLastName(lowers[lowers.length - 1]!) &&
    !(placeContext(span.before) && !isGivenName(lowers[0]!)) &&
    tokens.every((t) => nameLike(t, ctx, false) || isLastName(bare(t)))
  ) {
    return person(2);
  }
  // "Suzuki Ren", "Nagy Eszter": a family name first, then a given name (East Asian and Hungarian order).
  if (count === 2 && isLastName(lowers[0]!) && isGivenName(lowers[1]!) && !isKnownPlace(phraseOf(lowers)))
    return person(2);
  // "Choi Min-jung", "Trần Minh Tuấn", "Lim Hui Shan": a Chinese, Korean or Vietnamese family name
  // first, then short given syllables (or words of another alphabet) no lexicon gives a meaning.
  if (
    count <= 4 &&
    FAMILY_FIRST_NAMES.has(lowers[0]!) &&
    !placeContext(span.before) &&
    !placeOfWords(tokens) &&
    tokens
      .slice(1)
      .every(
        (t) =>
          t.capitalised &&
          !t.acronym &&
          !isHead(t) &&
          !ROLE_WORDS.has(bare(t)) &&
          !STREET_WORDS.has(bare(t)) &&
          (NAME_SHAPE.test(t.text) ||
            (GIVEN_SYLLABLES.test(t.text) && (bare(t).length <= 3 || !isCommon(bare(t), ctx)))),
      )
  )
    return person(1.5);
  if (count > 3) return null;
  // "Hải Phòng", "Sha Tin": a place the gazetteer knows is not read as a person on weaker cues.
  if (placeOfWords(tokens)) return null;
  // "Bilal Qureshi, Director", "Ananya Rao, Regional Sales Head": a role after a name is cue enough for unusual words.
  if (
    roleAfter(span.after) &&
    tokens.every((t) => nameLike(t, ctx, false, true) || NAME_PARTICLES.has(t.text)) &&
    !placeContext(span.before)
  ) {
    return person(1.2);
  }
  if (!tokens.every((t) => nameLike(t, ctx, false) || NAME_PARTICLES.has(t.text))) return null;
  // "growers in Kon Tum", "at the Long An depot": after "in", "at" or "near" an unknown name is a place, not a person.
  if (placeContext(span.before)) return null;

  // "your client, Siobhán O'Connell, wishes": words shaped only as names are, mid-sentence.
  if (
    !span.sentenceStart &&
    count <= 3 &&
    tokens.some((t) => NAME_SHAPE.test(t.text)) &&
    tokens.every((t) => nameLike(t, ctx, false))
  )
    return person(1.5);
  // "Eoghan Mac Giolla Phádraig expects …": at a sentence's start, a particle or two name-shaped words are cue enough.
  const shaped = tokens.filter((t) => NAME_SHAPE.test(t.text) || NAME_PARTICLES.has(t.text)).length;
  if (
    span.sentenceStart &&
    shaped >= 2 &&
    count >= 2 &&
    tokens.every((t) => nameLike(t, ctx, false) || NAME_PARTICLES.has(t.text)) &&
    /^\s+\p{Ll}/u.test(span.after)
  )
    return person(1.5);
  // Two or three words no lexicon, gazetteer or document knows otherwise, mid-sentence and not
  // after "in"/"at" (a place): "contact Karthik Subramanian", "go to Priya Chandrasekaran".
  if (
    !span.sentenceStart &&
    count >= 2 &&
    count <= 3 &&
    /\b(?:contact(?:ing)?|to|by|cc|ask(?:ing)?|call|e-?mail|tell|thank(?:s)?|attention of|attn\.?|approved by|signed by|reviewed by)\s*:?\s*$/i.test(
      span.before,
    ) &&
    tokens.every((t) => nameLike(t, ctx, false) && !isKnownCompanyWord(bare(t)))
  ) {
    return person(1.2);
  }
  // Unknown names need a cue: a role after them, a verb of saying, a speaker label, a signature.
  const role = roleAfter(span.after);
  const said = /^\s*,?\s*([\p{L}]+)/u.exec(span.after)?.[1]?.toLowerCase();
  const saidBefore = /([\p{L}]+),?\s*$/u.exec(span.before)?.[1]?.toLowerCase();
  const key = tokens.map((t) => t.lower).join(' ');
  if (
    role ||
    (said && SPEECH_VERBS.has(said)) ||
    (saidBefore && (SPEECH_VERBS.has(saidBefore) || saidBefore === 'by')) ||
    ((ctx.speakers.get(key) ?? 0) >= 2 && /^\s*:/.test(span.after)) ||
    (ctx.signatureLines.has(span.line) && span.after.trim() === '' && span.sentenceStart)
  ) {
    return person(1);
  }
  return null;
}

const CONNECTORSISH = new Set(['of', 'and', '&', 'for', 'the']);
/** "T" of "Gregory T. Hamilton": an initial, a name's word but never its last. */
const isInitial = (t: NameToken) => /^\p{Lu}$/u.test(t.text);
const endsWithInitial = (tokens: NameToken[]) => tokens.length > 0 && isInitial(tokens[tokens.length - 1]!);
const phraseOf = (lowers: string[]) => lowers.join(' ');

/**
 * A job title after a name: ", Director", " (Head of Treasury)", " - Regional Sales Head": up to
 * five capitalised words (with "of", "and", "&") of which one is a role word.
 */
function roleAfter(after: string): boolean {
  const m =
    /^\s*(?:,|\(|-|–|—)\s*(?:the\s+|our\s+|a\s+)?((?:[\p{L}&-]+)(?:\s+(?:[\p{Lu}&][\p{L}&-]*|of|and|for)){0,4})/u.exec(
      after,
    );
  if (!m) return false;
  const words = m[1]!.toLowerCase().split(/\s+/);
  return words.some((w) => ROLE_WORDS.has(w));
}

/** Text before a name that makes it a place: "in", "near", "at", also after a first place ("in Kon Tum and"). */
function placeContext(before: string): boolean {
  return (
    /\b(?:in|near|at)\s+(?:the\s+)?$/i.test(before) ||
    /\b(?:in|near)\s+(?:\p{Lu}[\p{L}'’-]*\s+){1,3}(?:and|or)\s+$/u.test(before)
  );
}
/** Capitalised particles of Irish, Scottish and Arabic names ("Tomás Ó Briain", "Áine Ní Bhriain"). */
const NAME_PARTICLES = new Set(['Ó', 'Ní', 'Nic', 'Uí', 'Mac', 'Mc', 'Bin', 'Binti', 'Ibn', 'Al', 'El', 'Abu']);
/** Shapes only names have: an Irish or Scottish prefix, letters of non-English alphabets. */
const NAME_SHAPE = /^(?:O['’]\p{Lu}|Mc\p{Lu}|Mac\p{Lu}\p{Ll})|[À-ÖØ-öø-ɏḀ-ỿ]/u;
const GREETINGS = new Set(['dear', 'hi', 'hello', 'hey']);
/**
 * A venue or site, not a place ("Thames Valley Park", "Peenya Industrial Area", "Wing On Centre",
 * "Union Hall"): the corpus rules leave business parks, industrial estates and buildings out
 * ("Kempton Park", a town, has no such word before "Park").
 */
export const isVenue = (lowers: string[]) => {
  const last = lowers[lowers.length - 1]!;
  const before = lowers[lowers.length - 2] ?? '';
  return (
    /^(?:centre|center|hall|market|mall)$/.test(last) ||
    (/^(?:park|area|estate|zone)$/.test(last) &&
      /^(?:industrial|business|trading|economic|export|free|technology|science|retail|office|trade|valley|logistics|commercial|innovation|research)$/.test(
        before,
      ))
  );
};
const REGION_WORDS = new Set(
  'region province district county state prefecture municipality oblast governorate territory'.split(' '),
);
const STREET_BEFORE = new RegExp(
  `\\b(?:${[...STREET_FIRST].filter((w) => w !== 'via').join('|')})\\.?\\s+(?:(?:d[aeo]s?|del|de\\s+la|di|du|des)\\s+)?$`,
  'iu',
);
/** The last word of a place's name ("Region", "District") or an abstract or collective noun ("Documentation", "Residences"). */
const notNameEnd = (lower: string) =>
  REGION_WORDS.has(lower) ||
  /(?:tion|sion|ment|ness|ship|ism|ences|ency|ancy|ances|ities|ations|ology)$/.test(lower) ||
  lower === 'residency';
/** A romanised Chinese or Korean given name: one or two short syllables ("Tai", "Min-jung", "Dong-hyun"). */
const GIVEN_SYLLABLES = /^\p{Lu}\p{Ll}{0,5}(?:-\p{Ll}{1,5})?$/u;

function recognisePlaces(span: NameSpan, tokens: NameToken[], ctx: DocumentContext): Recognised[] {
  const lowers = tokens.map(bare);
  if (STREET_WORDS.has(lowers[lowers.length - 1]!)) return [];
  // "Fremantle WA 6160": a town before a state and a postcode, without a comma.
  const last = tokens[tokens.length - 1]!;
  if (tokens.length >= 2 && last.acronym && REGION_ABBREVIATIONS.has(last.text) && /^\s+\d{4,5}\b/.test(span.after)) {
    const town = tokens.slice(0, -1);
    if (town.length <= 3 && town.every((t) => t.capitalised && !t.acronym))
      return [{ kind: 'place', tokens: town, strength: 2 }];
  }
  // "Duluth, MN", "Phoenix, Arizona", "Monterrey, Mexico": a town before its region or country.
  const region = /^\s*,\s*(\p{Lu}\p{L}*)(\.)?(?:\s+(\p{Lu}\p{L}*))?/u.exec(span.after);
  if (region && tokens.length <= 3 && tokens.every((t) => t.capitalised && !t.acronym && !ROLE_WORDS.has(bare(t)))) {
    const candidates = [region[1]!, ...(region[3] && !region[2] ? [`${region[1]} ${region[3]}`] : [])];
    const gazetteer = (r: string) =>
      findCountry(r) !== null || findRegion(r) !== null || (findCity(r)?.population ?? 0) >= LARGE_CITY;
    const known = candidates.some(
      (r) =>
        REGION_ABBREVIATIONS.has(r) || ((isKnownPlace(r.toLowerCase()) || gazetteer(r)) && !isGivenName(lowers[0]!)),
    );
    if (known) return [{ kind: 'place', tokens, strength: 2 }];
  }
  // "the cold-storage plant at Nashik", "the dyehouse in Inegol", "the port of Tema": a town no
  // gazetteer holds, named where a site or a town is meant.
  if (
    tokens.length === 1 &&
    !last.acronym &&
    SITE_BEFORE.test(span.before) &&
    !/^\s*(?:['’]s|&|\+)/u.test(span.after) &&
    !(isCommon(lowers[0]!, ctx) || isGivenName(lowers[0]!) || isLastName(lowers[0]!) || isKnownCompanyWord(lowers[0]!))
  )
    return [{ kind: 'place', tokens, strength: 1.4 }];
  // Known places inside the span, longest first ("State of New York" → "New York").
  const out: Recognised[] = [];
  for (let i = 0; i < tokens.length; ) {
    let matched = 0;
    for (let size = Math.min(4, tokens.length - i); size >= 1 && matched === 0; size--) {
      const slice = tokens.slice(i, i + size);
      if (slice.some((t) => !t.capitalised || t.acronym)) continue;
      const key = slice.map(bare).join(' ');
      if (isKnownPlace(key) && !(size === 1 && isGivenName(key) && tokens.length > 1)) matched = size;
      else if (size === tokens.length && cityInContext(key, slice, span, ctx)) matched = size;
      else if (
        size === tokens.length &&
        (size > 1 || !(isCommon(key, ctx) || isGivenName(key) || isLastName(key))) &&
        (findCountry(key) !== null || findRegion(key) !== null)
      )
        matched = size;
      else if (size >= 2 && COMPASS.has(bare(slice[0]!)) && isKnownPlace(slice.slice(1).map(bare).join(' ')))
        matched = size;
      else if (
        size >= 2 &&
        PLACE_WORDS.has(bare(slice[size - 1]!)) &&
        !STREET_WORDS.has(bare(slice[size - 1]!)) &&
        !isVenue(slice.map(bare))
      )
        matched = size;
    }
    if (matched > 0) {
      // "Maersk Kowloon" (a ship), "Kowloon Dairy": a place inside a longer name is not the place.
      const others = [...tokens.slice(0, i), ...tokens.slice(i + matched)];
      if (
        others.some(
          (t) =>
            t.capitalised &&
            !t.acronym &&
            t.lower !== '&' &&
            !isCommon(bare(t), ctx) &&
            !COMPASS.has(bare(t)) &&
            !isKnownPlace(bare(t)),
        )
      ) {
        out.length = 0;
        break;
      }
      const next = tokens[i + matched];
      // "Hartford Arts Council" was already an organisation; a place followed by more capitals is not a place.
      if (!next?.capitalised || next.lower === '&')
        out.push({ kind: 'place', tokens: tokens.slice(i, i + matched), strength: 1 });
      i += matched;
    } else i++;
  }
  if (out.length > 0) return out;
  // "a new depot in Ravensmoor", "growers in Kon Tum and Lâm Đồng": an unknown name after "in" or "near".
  if (
    tokens.length <= 3 &&
    /\b(?:in|near)\s+$|\b(?:in|near)\s+(?:\p{Lu}[\p{L}'’-]*\s+){1,3}(?:and|or)\s+$/u.test(span.before)
  ) {
    const unknown =
      !SUBJECT_BEFORE_IN.test(span.before) &&
      tokens.every(
        (t) =>
          t.text.length >= 3 &&
          t.capitalised &&
          !t.acronym &&
          !isCommon(bare(t), ctx) &&
          !(tokens.length === 1 && isGivenName(bare(t))) &&
          !isKnownCompanyWord(bare(t)) &&
          !lexiconTags(bare(t)).includes('Demonym') &&
          !NOT_A_NAME_SUFFIX.test(bare(t)),
      );
    // One word needs a place's end: a clause's end or another name ("in Ravensmoor, replacing"; not "in Fortran and explains").
    // … or a date after it ("in Changamwe on 3 June"), or a known place before it in the list ("in Alicante and Castellón").
    const listedAfterPlace = /\b(?:in|near)\s+((?:\p{Lu}[\p{L}'’-]*\s+){1,3})(?:and|or)\s+$/u
      .exec(span.before)?.[1]
      ?.trim();
    const ends =
      tokens.length > 1 ||
      /^\s*(?:[,.;:)]|$)|^\s+(?:and|or)\s+\p{Lu}\p{Ll}/u.test(span.after) ||
      /^\s+(?:on|since|until|from)\s+(?:the\s+)?\d/u.test(span.after) ||
      (listedAfterPlace !== undefined &&
        (isKnownPlace(listedAfterPlace.toLowerCase()) ||
          findCity(listedAfterPlace) !== null ||
          findRegion(listedAfterPlace) !== null));
    if (unknown && ends && !/^\s*(?:\d|['’]s\b)/.test(span.after)) return [{ kind: 'place', tokens, strength: 0.8 }];
  }
  return out;
}

/**
 * A city of the gazetteer, as the whole span. Names that are also people's names or ordinary words
 * ("Florence", "Reading") need a place's context: "in"/"at"/"near"/"from" before, ", <region>" or a
 * postcode after, a postcode before ("38440 Wolfsburg"), or another place in a list ("Leeds and Bristol").
 */
const LARGE_CITY = 500_000;
const SITE_BEFORE =
  /\b(?:plant|factory|site|office|offices|warehouse|depot|mill|mine|terminal|yard|branch|facility|dyehouse|workshop|port|town|city|village|municipality)\s+(?:at|in|of|near|outside)\s+$/i;
const INCOTERMS = new Set(['fob', 'cif', 'cfr', 'exw', 'fca', 'dap', 'ddp', 'cpt', 'cip']);
/** "experience in Fortran", "fluent in Portuguese": after these words "in" names a subject, not a place. */
const SUBJECT_BEFORE_IN =
  /\b(?:experience|experienced|skilled|skills|proficient|proficiency|fluent|fluency|trained|training|certified|certification|degree|diploma|courses?|interest|interested|expert|expertise|written|built|coded|listed|set out|described|specified|shown|stated|defined)\s+in\s+$/i;

function cityInContext(key: string, tokens: NameToken[], span: NameSpan, ctx: DocumentContext): boolean {
  const city = findCity(key);
  if (city === null || tokens.some((t) => t.acronym)) return false;
  // A one-word town of a few thousand people shares its name with many things (a fruit, a programming language).
  const ambiguous =
    tokens.length === 1 &&
    (city.population < LARGE_CITY ||
      isGivenName(key) ||
      isLastName(key) ||
      isCommon(key, ctx) ||
      NOT_A_NAME_SUFFIX.test(key));
  if (!ambiguous) return true;
  return (
    /\b(?:in|at|near|from|to|via|outside|fob|cif|cfr|exw|fca|dap|ddp|cpt|cip)\s+$/i.test(span.before) ||
    // "the port of Rosario", "the city of Debrecen".
    /\b(?:port|city|town|province|region|district|municipality|outskirts|suburbs?)\s+of\s+$/i.test(span.before) ||
    // "the Stavanger quay", "our Debrecen office": a town named before what stands there.
    (/\b(?:the|our|their|its|your)\s+$/i.test(span.before) && /^\s\p{Ll}{3,}\b/u.test(span.after)) ||
    (/,\s*$/.test(span.before) && /^\s*$/.test(span.after)) ||
    /\b\d{4,6}\s+$/.test(span.before) ||
    /^\s*(?:,\s*\p{Lu}|\s\d{3,6}\b|\s+(?:and|or)\s+\p{Lu})/u.test(span.after) ||
    /\p{Lu}[\p{L}'’-]*\s+(?:and|or)\s+$/u.test(span.before)
  );
}
