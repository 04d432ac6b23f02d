import {
  type AmountEntity,
  type DateEntity,
  type Entities,
  type EntityDetails,
  type NamedEntity,
  plainEntities,
} from '../ai-provider.ts';
import { words } from '../text.ts';
import { type AmountMention, findAmounts } from './amounts.ts';
import { type DateMention, findDates } from './dates.ts';
import { findFieldValues, type TypedValue } from './fields.ts';
import { isLastName } from './lexicon.ts';
import { detectLocale, type Locale } from './locale.ts';
import {
  type DocumentContext,
  isCommon,
  isGivenName,
  isHead,
  isVenue,
  looksLikeAffiliation,
  placeOfWords,
  plausibleOrganization,
  plausiblePerson,
  type Recognised,
  recognise,
  trimSpan,
} from './name-rules.ts';
import { findNameSpans, type NameSpan, type NameToken } from './name-spans.ts';
import { CLOSINGS, LEGAL_SUFFIXES, ROLE_WORDS, STREET_WORDS, STRONG_ORG_HEADS } from './name-words.ts';
import { findPayees, type Payee } from './payees.ts';

// Rule-based entity extraction: candidate names from capitalisation, typed by compromise's
// lexicon (given names, family names, places, well-known organisations), organisation suffixes
// and heads, titles, roles, field labels and table headers; dates and amounts from patterns.

type Kind = Recognised['kind'];

interface Mention {
  kind: Kind;
  name: string;
  key: string;
  tokens: string[];
  start: number;
  end: number;
  strength: number;
}

/** "TRANSIT FOR LEEDS" → "Transit for Leeds": a payee written in capitals, in the case of a name. */
function payeeMention(payee: Payee): Mention {
  const words = payee.name.split(/\s+/);
  const name = words
    .map((w, i) =>
      i > 0 && /^(?:for|of|and)$/i.test(w)
        ? w.toLowerCase()
        : w.toLowerCase().replace(/(^|[-'’&])(\p{L})/gu, (_, sep: string, ch: string) => sep + ch.toUpperCase()),
    )
    .join(' ');
  const tokens = name
    .toLowerCase()
    .split(/[^\p{L}\p{N}&]+/u)
    .filter(Boolean);
  return {
    kind: 'organization',
    name,
    key: tokens.join(' '),
    tokens,
    start: payee.start,
    end: payee.end,
    strength: 2.5,
  };
}

/** People, organisations, places, dates and amounts of a text, each unique in order of first appearance. */
export function extractEntitiesLocal(text: string, options: { referenceDate?: Date } = {}): Entities {
  return plainEntities(extractEntityDetails(text, options));
}

/** The entities of a text with a confidence for each (and the written form of dates and amounts). */
export function extractEntityDetails(
  text: string,
  options: { referenceDate?: Date; locale?: Locale; dates?: DateMention[]; amounts?: AmountMention[] } = {},
): EntityDetails {
  const locale = options.locale ?? detectLocale(text);
  const ctx = documentContext(text);
  const spans = findNameSpans(text);
  const mentions: Mention[] = [];
  const spanAt = new Map(spans.map((s) => [s.start, s]));
  for (const span of spans) {
    for (const r of recognise(span, trimSpan(span, ctx), ctx)) {
      mentions.push(toMention(text, r.kind, r.tokens, r.strength));
      if (r.kind !== 'person') continue;
      // "Owen Jarvis (Network Rail)", "Ian McGregor, Ocado Technology": where the person works.
      // "Emil Dahl, property manager, Riksbyggen": or after the person's role.
      const afterRole = /^\s*,\s*(?:the\s+)?(?:[\p{L}-]+\s+){0,3}[\p{L}-]+\s*,\s*/u
        .exec(span.after)
        ?.filter((g) => g.split(/[\s,]+/).some((w) => ROLE_WORDS.has(w.toLowerCase())))[0];
      const gap = afterRole ?? /^\s*(?:\(|,\s*)/.exec(span.after)?.[0];
      const next = gap ? spanAt.get(span.end + gap.length) : undefined;
      // … not a department after a role ("Director, Risk Consulting"): a word of its own names the firm.
      const distinctive = (ts: NameToken[]) => ts.some((t) => t.capitalised && !t.acronym && !isCommon(t.lower, ctx));
      if (
        next &&
        looksLikeAffiliation(next, next.tokens, ctx) &&
        (!afterRole ||
          (distinctive(next.tokens) &&
            !placeOfWords(next.tokens) &&
            recognise(next, trimSpan(next, ctx), ctx).every((x) => x.kind === 'organization')))
      )
        mentions.push(toMention(text, 'organization', next.tokens, 1.5));
    }
  }

  mentions.push(
    ...listMentions(text, spans, mentions, ctx),
    ...coordinatedMentions(text, spans, mentions, ctx),
    ...signatureOrganizations(text, spans, mentions, ctx),
    ...partyOrganizations(text, spans, mentions, ctx),
    ...addressPlaces(text, spans, ctx),
  );

  const fields = findFieldValues(text, locale.amounts);
  // "To: Jose Ramon Santos; Angelito Bautista": the items of one field are of one kind, so a
  // party's item beside one read as a person's name by its words is a person too.
  const tokensOf = (item: TypedValue) =>
    spans.find((s) => s.start === item.start)?.tokens.filter((t) => t.end <= item.start + item.text.length) ?? [];
  const byWords = (item: TypedValue) => {
    const tokens = tokensOf(item);
    return tokens.length > 0 && personByWords(tokens) && plausiblePerson(tokens, ctx);
  };
  const sameField = (a: TypedValue, b: TypedValue) =>
    a !== b &&
    a.kind === b.kind &&
    /^[\s;,]*$/.test(
      text.slice(Math.min(a.start + a.text.length, b.start + b.text.length), Math.max(a.start, b.start)),
    );
  for (const whole of fields.values) {
    const items = personItems(whole);
    const peopleField =
      whole.kind === 'party' && fields.values.some((other) => sameField(whole, other) && byWords(other));
    for (const value of items) {
      const end = value.start + value.text.length;
      // "… and Bongani Sithole": an item may start inside a span that joined two names.
      const outer = spans.find((s) => s.end > value.start && s.start < end);
      const inner = outer?.tokens.filter((t) => t.start >= value.start && t.end <= end) ?? [];
      if (!outer || inner.length === 0) continue;
      const span: NameSpan =
        inner[0] === outer.tokens[0]
          ? outer
          : { ...outer, tokens: inner, start: inner[0]!.start, before: '', sentenceStart: false, honorific: null };
      const tokens = trimSpan(span, ctx).filter((t) => t.end <= end);
      // "Witness: Faith Achieng Okello": a label says a person follows, so a first word that is also an ordinary one stays.
      const whole = span.tokens.filter((t) => t.end <= end);
      const person = [whole, tokens].find((ts) => ts.length > 0 && plausiblePerson(ts, ctx));
      if (value.kind === 'person' && person && !placeOfWords(person))
        mentions.push(toMention(text, 'person', person, 2.5));
      // "Participants from the supplier: Lee Dong-hyun (Plant Manager)": a label may name a company's side, and a person speak for it.
      const personThere =
        value.kind === 'organization' &&
        tokens.length > 0 &&
        personByWords(tokens) &&
        plausiblePerson(tokens, ctx) &&
        !tokens.some((t) => LEGAL_SUFFIXES.has(t.lower.replace(/\./g, ''))) &&
        mentions.some((m) => m.kind === 'person' && m.start === tokens[0]!.start);
      if (value.kind === 'organization' && plausibleOrganization(tokens, ctx) && !personThere)
        mentions.push(toMention(text, 'organization', tokens, 2.5));
      if (value.kind === 'party' && tokens.length > 0 && !placeOfWords(tokens)) {
        if (plausiblePerson(tokens, ctx) && (personByWords(tokens) || peopleField))
          mentions.push(toMention(text, 'person', tokens, 2.5));
        else if (plausibleOrganization(tokens, ctx)) mentions.push(toMention(text, 'organization', tokens, 2.2));
      }
    }
  }

  // A statement's payee is one name: what the capitalisation rules made of its line (the line's
  // first word joined to it, its town as a place) gives way to it.
  const payees = findPayees(text);
  const straddles = (m: Mention) => payees.some((p) => m.end > p.start && m.start < p.end);
  const kept = payees.length > 0 ? mentions.filter((m) => !straddles(m)) : mentions;
  for (const payee of payees) kept.push(payeeMention(payee));

  const merged = merge(kept, ctx);
  return {
    people: merged.person,
    organizations: merged.organization,
    locations: merged.place,
    dates: uniqueDates(options.dates ?? findDates(text, { referenceDate: options.referenceDate, locale })),
    amounts: uniqueAmounts(
      [...(options.amounts ?? findAmounts(text, locale.amounts)), ...fields.amounts].sort((a, b) => a.start - b.start),
    ),
  };
}

// One entry per day: the surest reading, its alternatives kept only while every mention is ambiguous.
function uniqueDates(mentions: DateMention[]): DateEntity[] {
  const byDay = new Map<string, DateEntity>();
  for (const m of mentions) {
    const current = byDay.get(m.iso);
    if (!current) {
      byDay.set(m.iso, {
        value: m.iso,
        text: m.text,
        confidence: round(m.confidence),
        ...(m.alternatives ? { alternatives: m.alternatives } : {}),
      });
    } else if (m.confidence > current.confidence || (!m.alternatives && current.alternatives)) {
      byDay.set(m.iso, {
        value: m.iso,
        text: m.text,
        confidence: round(Math.max(m.confidence, current.confidence)),
        ...(m.alternatives ? { alternatives: m.alternatives } : {}),
      });
    }
  }
  return [...byDay.values()];
}

function uniqueAmounts(
  mentions: { amount: number; currency: string; text: string; confidence?: number }[],
): AmountEntity[] {
  const seen = new Map<string, AmountEntity>();
  for (const m of mentions) {
    const key = `${m.currency} ${m.amount}`;
    const current = seen.get(key);
    if (current) current.confidence = round(Math.min(0.99, current.confidence + 0.02));
    else seen.set(key, { value: m.amount, currency: m.currency, text: m.text, confidence: m.confidence ?? 0.95 });
  }
  return [...seen.values()];
}

const round = (x: number) => Math.round(x * 100) / 100;

function documentContext(text: string): DocumentContext {
  const lowercaseWords = new Set<string>();
  // Addresses and links are written in lower case whatever they name ("press@veridian-energy.example").
  const prose = text.replace(/\S+@\S+|\b(?:https?:\/\/|www\.)\S+|\b[\w-]+\.(?:com|org|net|io|example)\b\S*/gi, ' ');
  for (const w of words(prose))
    if (w.text === w.lower && w.lower.length >= 3 && !/\d/.test(w.lower)) lowercaseWords.add(w.lower);

  const speakers = new Map<string, number>();
  const signatureLines = new Set<number>();
  let previous = '';
  text.split(/\r?\n|\f/).forEach((line, index) => {
    const speaker = /^\s*(?:\[[\d:.]+\]\s*)?(\p{Lu}[\p{L}'’ .-]{1,40}?)\s*:/u.exec(line)?.[1];
    if (speaker) speakers.set(speaker.toLowerCase(), (speakers.get(speaker.toLowerCase()) ?? 0) + 1);
    if (line.trim() === '') return;
    if (CLOSINGS.test(previous.trim())) signatureLines.add(index);
    previous = line;
  });
  // Lines as the span finder numbers them: a short line above a job title, and a heading above a role or contact line.
  const lines = text.split('\n');
  const nextFilled = (i: number) => {
    for (let j = i + 1; j < lines.length; j++) if (lines[j]!.trim() !== '') return j;
    return -1;
  };
  const aboveRoleLines = new Set<number>();
  lines.forEach((line, i) => {
    const next = nextFilled(i);
    if (line.trim() === '' || next < 0 || next > i + 1) return;
    // Two signatures side by side: each column's cell is a name above a title.
    const cells = columnCells(line);
    if (cells.some((c) => c.split(/\s+/).length > 5)) return;
    if (columnCells(lines[next]!).some(isRoleLine)) aboveRoleLines.add(i);
  });
  let headingLine: number | null = null;
  const first = lines.findIndex((l) => l.trim() !== '');
  const second = first >= 0 ? nextFilled(first) : -1;
  if (
    second > 0 &&
    lines[first]!.trim().split(/\s+/).length <= 4 &&
    (isRoleLine(lines[second]!.split(/[·|]/)[0]!) || /@|\+\d{2}[\d ()-]{6,}|\s[·|]\s/.test(lines[second]!))
  ) {
    headingLine = first;
  }
  // A CV opens with its owner's name, whatever follows it (an address, a title line above it).
  if (headingLine === null && CV_CUES.test(text)) {
    const opening = lines
      .map((l, i) => [l.trim(), i] as const)
      .filter(([l]) => l !== '')
      .slice(0, 3);
    const name = opening.find(
      ([l]) => !CV_TITLE.test(l) && /^\p{Lu}[\p{L}'’.-]*(?:\s+\p{Lu}[\p{L}'’.-]*){1,3}$/u.test(l),
    );
    if (name) headingLine = name[1];
  }
  return { lowercaseWords, speakers, signatureLines, aboveRoleLines, headingLine };
}

/** A line's columns: text separated by three or more spaces or a tab. */
const columnCells = (line: string) => line.trim().split(/ {3,}|\t+/);

// A CV by its title or by two of its section headings on lines of their own.
const CV_TITLE = /^(?:curriculum vitae|cv|r[ée]sum[ée]|resume)$/i;
const CV_CUES =
  /^\s*(?:curriculum vitae|r[ée]sum[ée])\s*$|^\s*(?:(?:work |professional |employment )?(?:experience|history)|education|skills|profile|referees|references|qualifications)\s*:?\s*$(?:[\s\S]*?)^\s*(?:(?:work |professional |employment )?(?:experience|history)|education|skills|profile|referees|references|qualifications)\s*:?\s*$/im;

/** "Export Director", "Chief Financial Officer | Clarabeg …", "Head of Human Resources": a line that is a job title. */
function isRoleLine(line: string): boolean {
  const trimmed = line.trim();
  if (!/^\p{Lu}/u.test(trimmed) || /[:@\d]/.test(trimmed.split('|')[0]!)) return false;
  const wordsOfLine = trimmed.split(/[|,]/)[0]!.trim().split(/\s+/);
  return wordsOfLine.length <= 6 && wordsOfLine.some((w) => ROLE_WORDS.has(w.toLowerCase()));
}

/**
 * The line under a signature's job title: "Nguyễn Thị Hồng Nhung" / "Export Director" / "Song Da
 * Furniture". A name alone there, not already typed on firm evidence, is the signer's organisation.
 */
function signatureOrganizations(text: string, spans: NameSpan[], mentions: Mention[], ctx: DocumentContext): Mention[] {
  const out: Mention[] = [];
  for (const span of spans) {
    if (!ctx.aboveRoleLines.has(span.line - 2) || span.after.trim() !== '' || span.before.trim() !== '') continue;
    if (mentions.some((m) => m.start >= span.start && m.end <= span.end && m.strength >= 2)) continue;
    const tokens = trimSpan(span, ctx);
    if (
      tokens.length > 0 &&
      tokens.length <= 5 &&
      plausibleOrganization(tokens, ctx) &&
      !placeOfWords(tokens) &&
      !isGivenName(tokens[0]!.lower)
    ) {
      out.push(toMention(text, 'organization', tokens, 1.6));
    }
  }
  return out;
}

// Roles a contract gives a company: `Tembo Cold Chain (the "Provider")`. Roles a person may hold
// as well (Tenant, Employee, Landlord) are left out: the name's own words decide those.
const PARTY_ROLE =
  /^\s*\(\s*(?:hereinafter\s+(?:referred\s+to\s+as\s+)?|together\s+)?["“”']?(?:the\s+)?["“”']?(?:supplier|customer|client|contractor|sub-?contractor|provider|service\s+provider|company|vendor|buyer|seller|purchaser|licensor|licensee|consultant|employer|distributor|manufacturer|lender|borrower|insurer|agency|bank|carrier|principal)["“”']?\s*\)/iu;
const ON_BEHALF = /\b(?:for\s+and\s+)?on\s+behalf\s+of[\s:]*$/iu;

/**
 * Companies named by their place in a document rather than by their words: a party a contract
 * defines by a company's role (`X (the "Supplier")`, `X ("the Contractor")`), the name after
 * "for and on behalf of" (on its line or the next), and a name whose letters are an e-mail or web
 * domain of the document ("Kauri Coast Joinery" beside accounts@kauricoastjoinery.co.nz). A name
 * typed on firm evidence keeps its type; one that reads as a person's is left to the person rules.
 */
function partyOrganizations(text: string, spans: NameSpan[], mentions: Mention[], ctx: DocumentContext): Mention[] {
  const out: Mention[] = [];
  const domains = new Set<string>();
  for (const m of text.matchAll(/(?:@|\bwww\.|https?:\/\/)([a-z0-9-]+)\./giu))
    if (m[1]!.length >= 4) domains.add(m[1]!.toLowerCase().replace(/-/g, ''));
  const lines = text.split('\n');
  for (const span of spans) {
    const prevLine = span.line >= 1 ? (lines[span.line - 1] ?? '') : '';
    const placed =
      letterhead(span, lines) ||
      PARTY_ROLE.test(span.after) ||
      ON_BEHALF.test(span.before) ||
      (span.before.trim() === '' && ON_BEHALF.test(prevLine));
    // The trimmed name is a run of the span's words: a domain must already be inside the whole span.
    if (!placed) {
      const whole = span.tokens.map((t) => t.lower).join('');
      if (![...domains].some((d) => whole.includes(d))) continue;
    }
    const tokens = trimSpan(span, ctx);
    if (tokens.length === 0 || tokens.length > 6) continue;
    if (!placed && !domains.has(tokens.map((t) => t.lower).join(''))) continue;
    const firm = mentions.some(
      (m) => m.start <= span.start && m.end >= span.end && m.strength >= 2 && m.kind !== 'organization',
    );
    if (firm) continue;
    if (plausiblePerson(tokens, ctx) && isGivenName(tokens[0]!.lower)) continue;
    // "Solicitors" under a firm's name: a word of the language, not a name.
    const ordinary = (w: string) => isCommon(w, ctx) || (w.endsWith('s') && isCommon(w.slice(0, -1), ctx));
    if (!tokens.some((t) => t.capitalised && !ordinary(t.lower))) continue;
    if (!plausibleOrganization(tokens, ctx) || placeOfWords(tokens)) continue;
    out.push(toMention(text, 'organization', tokens, 2.2));
  }
  return out;
}

/** A name alone on one of a document's first lines with an address under it: the sender's letterhead. */
function letterhead(span: NameSpan, lines: string[]): boolean {
  if (span.line > 8 || span.before.trim() !== '' || span.after.trim() !== '') return false;
  const filled = lines.slice(0, span.line).filter((l) => l.trim() !== '').length;
  if (filled > 2) return false;
  const next = lines.slice(span.line + 1).find((l) => l.trim() !== '') ?? '';
  return ADDRESS_LINE.test(next);
}
const ADDRESS_LINE = new RegExp(
  `^\\s*(?:\\d[\\w/-]*,?\\s+(?:[\\p{L}'’.-]+\\s+){0,4}(?:${[...STREET_WORDS].join('|')})\\b|p\\.?\\s?o\\.?\\s+box\\b|\\d+(?:-\\d+)+\\s+\\p{L})`,
  'iu',
);

const LIST_ITEM = /^(\s*(?:[-*•·▪◦–]|\(?[a-z0-9]{1,2}[.)])\s+)(.*?)\s*$/u;

/** For each span of a group, the mentions inside it, and how many spans are firmly companies or people. */
function groupKinds(group: readonly NameSpan[], mentions: readonly Mention[]) {
  const kinds = group.map((span) => mentions.filter((m) => m.start >= span.start && m.end <= span.end));
  const firm = (k: Mention[], kind: Kind, strength: number) => k.some((m) => m.kind === kind && m.strength >= strength);
  return {
    kinds,
    orgs: kinds.filter((k) => firm(k, 'organization', 2.5)).length,
    people: kinds.filter((k) => firm(k, 'person', 1.5)).length,
  };
}

/**
 * Names listed one to an item ("Quotations were received from: a) Kalmar Hong Kong Limited
 * b) Liebherr Container Cranes c) Konecranes"): a list whose items are only names, one of them an
 * organisation on firm evidence and none a person, is a list of organisations; one whose items
 * include two people and no organisation, a list of people.
 */
function listMentions(text: string, spans: NameSpan[], mentions: Mention[], ctx: DocumentContext): Mention[] {
  const out: Mention[] = [];
  const groups: NameSpan[][] = [];
  let current: NameSpan[] = [];
  let offset = 0;
  for (const line of text.split('\n')) {
    const m = LIST_ITEM.exec(line);
    // The item's text without a note after it: "Twiga Foods", "Owen Jarvis (Chair)".
    const content = m ? m[2]!.replace(/\s*(?:\(.*\)|[—–]\s.*|\s-\s.*)$/u, '').trim() : '';
    const start = m ? offset + m[1]!.length : -1;
    const span = content ? spans.find((s) => s.start === start && s.end === start + content.length) : undefined;
    if (span) current.push(span);
    else {
      if (current.length >= 2) groups.push(current);
      current = [];
    }
    offset += line.length + 1;
  }
  if (current.length >= 2) groups.push(current);
  for (const group of groups) {
    const { kinds, orgs, people } = groupKinds(group, mentions);
    group.forEach((span, i) => {
      if (kinds[i]!.some((m) => m.strength >= 2)) return;
      const tokens = trimSpan(span, ctx);
      if (orgs >= 1 && people === 0 && plausibleOrganization(tokens, ctx) && !placeOfWords(tokens))
        out.push(toMention(text, 'organization', tokens, 1.6));
      else if (people >= 2 && orgs === 0 && plausiblePerson(tokens, ctx))
        out.push(toMention(text, 'person', tokens, 1.6));
    });
  }
  return out;
}

/** A postcode before a town: "293 01", "20124", "LT-03154", "4100-116"; four digits only after a comma or at the line's start. */
const POSTCODE_BEFORE = /(?:^|[\s,(])(?:[A-Z]{1,2}-)?(?:\d{3}\s\d{2}|\d{5,6}|\d{4}-\d{3})\s+$|(?:^|,\s*)\d{4}\s+$/u;
/** What follows a town or country in an address: the line's end, a comma, a dash, a postcode, a bracketed province. */
const ADDRESS_PART_AFTER = /^\s*(?:\d{2,6}\s*)?(?:$|[,–—(]|-\s)/u;

/**
 * Towns and countries of postal addresses ("tř. Václava Klementa 869, 293 01 Mladá Boleslav", "No. 45,
 * Galle Road, Colombo 03, Sri Lanka", "Makati City, Metro Manila, Philippines"): the name after a
 * postcode, and the last parts of an address line after its street, are places whatever their words
 * would otherwise suggest (a person's, a company's). A province's code after the town ("Milano MI") is
 * left out.
 */
function addressPlaces(text: string, spans: NameSpan[], ctx: DocumentContext): Mention[] {
  const out: Mention[] = [];
  const lines = text.split('\n');
  const hasStreet = (part: string) =>
    part.split(/[\s,]+/).some((w) => STREET_WORDS.has(w.toLowerCase().replace(/\.$/, '')));
  // An address's line: short, no sentence, a street and a number in it.
  const streetLine = (line: string) =>
    line.trim().length <= 100 &&
    !/[.!?]\s*$/.test(line) &&
    (ADDRESS_LINE.test(line) || (/\d/.test(line) && line.includes(',') && hasStreet(line)));
  for (const span of spans) {
    const line = lines[span.line] ?? '';
    const afterPostcode = POSTCODE_BEFORE.test(span.before) && ADDRESS_PART_AFTER.test(span.after);
    // … the street before the town, not after it ("Flat 3B, Lakshmi Residency, 14th Cross Road").
    const trailing =
      /(?:,|\s[–—-])\s*$/.test(span.before) &&
      ADDRESS_PART_AFTER.test(span.after) &&
      !hasStreet(span.after) &&
      !/\d+(?:st|nd|rd|th)\b/i.test(span.after) &&
      streetLine(line);
    if (!afterPostcode && !trailing) continue;
    let tokens = span.tokens.slice();
    while (tokens.length > 1 && /^\p{Lu}{2,3}$/u.test(tokens[tokens.length - 1]!.text)) tokens = tokens.slice(0, -1);
    if (
      tokens.length === 0 ||
      tokens.length > 3 ||
      tokens.some(
        (t) =>
          !t.capitalised ||
          t.acronym ||
          /\d/.test(t.text) ||
          STREET_WORDS.has(t.lower.replace(/\.$/, '')) ||
          LEGAL_SUFFIXES.has(t.lower.replace(/\./g, '')) ||
          ROLE_WORDS.has(t.lower) ||
          (isHead(t) && t.lower !== 'city') ||
          isCommon(t.lower, ctx),
      )
    )
      continue;
    out.push(toMention(text, 'place', tokens, 3.2));
  }
  return out;
}

/** What joins the names of a running list: a comma or semicolon, or "and"/"or" in the languages of the corpus. */
const COORDINATION =
  /^\s*(?:[,;]\s*(?:(?:and|or|y|e|et|und|och|og|i|ja|dan|và|ve|oraz)\s+)?|\s(?:and|or|y|e|et|und|och|og|ni\s+a|ni|o|i|ja|dan|và|ve|oraz|sekä|și)\s+)$/u;

/**
 * Names listed in running text ("offers from Tibber and Fortum", "Olam (Singapore), Neumann Kaffee
 * Gruppe (Hamburg) and Sucafina", "no presta servicios a Codelco ni a Antofagasta Minerals"): the
 * names of one list are of one kind, so an untyped name beside an organisation on firm evidence, in a
 * list with no person, is an organisation (and beside two people, with no organisation, a person). A
 * note in brackets after a name (its town, its role) is passed over.
 */
function coordinatedMentions(text: string, spans: NameSpan[], mentions: Mention[], ctx: DocumentContext): Mention[] {
  const groups: NameSpan[][] = [];
  let current: NameSpan[] = [];
  // Only a list a word closes ("… and Sucafina") is one: commas alone also separate a name from its town or a table's cells.
  let worded = false;
  for (let i = 0; i < spans.length; i++) {
    const span = spans[i]!;
    if (current.length === 0) {
      current.push(span);
      continue;
    }
    const last = current[current.length - 1]!;
    let from = last.end;
    // "Olam (Singapore), …": the note's names are not items.
    const note = /^\s*\([^()\n]{1,60}\)/.exec(text.slice(from, from + 64));
    if (note) {
      from += note[0].length;
      if (span.start < from) continue;
    }
    const gap = text.slice(from, span.start);
    if (span.line === last.line && !gap.includes('\n') && COORDINATION.test(gap)) {
      current.push(span);
      if (/\p{L}/u.test(gap)) worded = true;
    } else {
      if (current.length >= 2 && worded) groups.push(current);
      current = [span];
      worded = false;
    }
  }
  if (current.length >= 2 && worded) groups.push(current);
  const out: Mention[] = [];
  for (const group of groups) {
    const { kinds, orgs, people } = groupKinds(group, mentions);
    const places = kinds.filter((k) => k.some((m) => m.kind === 'place')).length;
    group.forEach((span, i) => {
      if (kinds[i]!.length > 0) return;
      const tokens = trimSpan(span, ctx);
      if (tokens.length === 0 || tokens.length > 5 || tokens.some((t) => ROLE_WORDS.has(t.lower) || t.acronym)) return;
      // "RUT 76.543.210-K", "LR No": a label before its value; "Κωνσταντίνος Μαυρίδης": a name given again in its own script.
      if (
        /^\s*(?:[:\d#]|no\b)/iu.test(span.after) ||
        /[^\p{Script=Latin}\s.&'’-]/u.test(span.tokens.map((t) => t.text).join(' '))
      )
        return;
      if (
        orgs >= 1 &&
        people === 0 &&
        places === 0 &&
        plausibleOrganization(tokens, ctx) &&
        !placeOfWords(tokens) &&
        !personByWords(tokens)
      )
        out.push(toMention(text, 'organization', tokens, 1.5));
      else if (
        orgs === 0 &&
        plausiblePerson(tokens, ctx) &&
        !placeOfWords(tokens) &&
        // "Dawit Haile (logistics) and Meron Tesfaye (quality)": one person is enough beside words shaped only as a name's.
        (people >= 2 ||
          (people >= 1 &&
            tokens.length <= 3 &&
            tokens.every((t) => /^\p{Lu}\p{Ll}+(?:-\p{Lu}?\p{Ll}+)?$/u.test(t.text) && !isCommon(t.lower, ctx))))
      )
        out.push(toMention(text, 'person', tokens, 1.5));
    });
  }
  return out;
}

/**
 * The people of one value a label calls a person: "Zanele Mahlangu and Bongani Sithole",
 * "1. Karabo Molefe  2. Hendrik Steyn", "Takeshi Yamamoto of Murata Manufacturing" (the person, then
 * where they work, an organisation's value). Other values are returned as they are.
 */
function personItems(value: TypedValue): TypedValue[] {
  if (value.kind !== 'person') return [value];
  const out: TypedValue[] = [];
  // "To: Jose Ramon Santos; Angelito Bautista": a semicolon separates people as "and" does.
  const separator = /\s+(?:and|&)\s+(?=\p{Lu})|\s*;\s*|\s{2,}(?:\d{1,2}[.)]\s+)?|\s+\d{1,2}[.)]\s+(?=\p{Lu})/gu;
  let from = 0;
  const push = (end: number) => {
    const raw = value.text.slice(from, end);
    const text = raw.trim();
    if (!text) return;
    const start = value.start + from + raw.indexOf(text);
    const of = /,?\s+of\s+(?=\p{Lu})/u.exec(text);
    // Not "Oliver Pennington, Head of Trading": a role's "of".
    const left = of ? text.slice(0, of.index) : '';
    if (of && !left.includes(',') && !left.split(/\s+/).some((w) => ROLE_WORDS.has(w.toLowerCase()))) {
      out.push({ kind: 'person', text: left, start });
      out.push({
        kind: 'organization',
        text: text.slice(of.index + of[0].length),
        start: start + of.index + of[0].length,
      });
    } else out.push({ kind: 'person', text, start });
  };
  for (const m of value.text.matchAll(separator)) {
    push(m.index);
    from = m.index + m[0].length;
  }
  push(value.text.length);
  return out;
}

/**
 * A value that may name a person or an organisation read as a person's name by its words: a given
 * name first ("Rafael Teixeira"), a family name the lexicon knows last, or short syllables of an East
 * or South-East Asian name ("Teo Siew Ling", "Chan Tai Man"); "Volta Microfinance" is none of these.
 */
function personByWords(tokens: NameToken[]): boolean {
  if (isGivenName(tokens[0]!.lower) || isLastName(tokens[tokens.length - 1]!.lower)) return true;
  return (
    tokens.length >= 2 &&
    tokens.length <= 4 &&
    tokens.every((t) => /^\p{Lu}\p{Ll}{1,4}(?:-\p{Ll}{1,4})?$/u.test(t.text))
  );
}

const ABBREVIATED_SUFFIX = new Set(['inc', 'ltd', 'co', 'corp', 'jr', 'sr', 'pte', 'ltda', 'pvt']);

function toMention(text: string, kind: Kind, tokens: NameToken[], strength: number): Mention {
  const parts: string[] = [];
  tokens.forEach((t, i) => {
    if (i > 0) parts.push(kind === 'person' ? ' ' : text.slice(tokens[i - 1]!.end, t.start).replace(/\s+/g, ' '));
    parts.push(t.text);
  });
  const last = tokens[tokens.length - 1]!;
  if (kind === 'organization' && ABBREVIATED_SUFFIX.has(last.lower) && text[last.end] === '.') parts.push('.');
  const name = parts.join('').replace(/['’]s$/, '');
  const keyTokens = name
    .toLowerCase()
    .replace(/['’]s\b/g, '')
    .split(/[^\p{L}\p{N}&]+/u)
    .filter(Boolean);
  return { kind, name, key: keyTokens.join(' '), tokens: keyTokens, start: tokens[0]!.start, end: last.end, strength };
}

// One entry per entity: the same name seen as two kinds takes the stronger evidence; short forms
// ("Veridian Energy", "Mr. Alvarez") fold into the full name seen elsewhere in the document.
function merge(mentions: Mention[], ctx: DocumentContext): Record<Kind, NamedEntity[]> {
  const best = new Map<string, Mention>();
  const counts = new Map<string, number>();
  for (const m of mentions) {
    counts.set(m.key, (counts.get(m.key) ?? 0) + 1);
    const current = best.get(m.key);
    if (!current || m.strength > current.strength)
      best.set(m.key, { ...m, start: Math.min(m.start, current?.start ?? m.start) });
    else current.start = Math.min(current.start, m.start);
  }
  const entries = [...best.values()];
  const folded = new Map<Mention, Mention>();
  for (const m of entries) {
    const target = entries.find((other) => other !== m && other.kind === m.kind && isShortFormOf(m, other));
    if (target) folded.set(m, target);
  }
  const firstSeen = new Map<Mention, number>();
  const seenTimes = new Map<Mention, number>();
  for (const m of entries) {
    let target = m;
    while (folded.has(target)) target = folded.get(target)!;
    firstSeen.set(target, Math.min(firstSeen.get(target) ?? Number.POSITIVE_INFINITY, m.start));
    seenTimes.set(target, (seenTimes.get(target) ?? 0) + (counts.get(m.key) ?? 1));
  }
  // "with Ravi next week" guessed a company from context; Ravi Menon is a person of the document.
  const personWords = new Set(
    entries.filter((m) => m.kind === 'person' && m.tokens.length > 1).flatMap((m) => m.tokens),
  );
  const guessedFromPerson = (m: Mention) =>
    m.kind === 'organization' && m.strength <= 1 && m.tokens.length === 1 && personWords.has(m.key);
  // "Contact: Harbourline Appliances" read as a person is the short form of "Harbourline Appliances Corp.".
  const orgs = entries.filter((m) => m.kind === 'organization');
  const shortOfOrg = (m: Mention) =>
    m.kind === 'person' && orgs.some((o) => isShortFormOf({ ...m, kind: 'organization' }, o));
  const out: Record<Kind, NamedEntity[]> = { person: [], organization: [], place: [] };
  const namesOfOthers = new Set(entries.filter((m) => m.kind !== 'place').map((m) => m.key));
  [...firstSeen.entries()]
    .sort((a, b) => a[1] - b[1])
    .forEach(([m]) => {
      if (
        (m.kind === 'place' && namesOfOthers.has(m.key)) ||
        guessedFromPerson(m) ||
        shortOfOrg(m) ||
        isAddress(m) ||
        notAnOrganization(m, ctx) ||
        (m.kind === 'place' && m.tokens.length >= 2 && isVenue(m.tokens))
      )
        return;
      out[m.kind].push({ name: m.name, confidence: confidenceOf(m.strength, seenTimes.get(m) ?? 1) });
    });
  return out;
}

// Evidence to confidence: a legal suffix or a gazetteer entry is near certain, a name guessed from
// the word before it ("with Globex") much less; every further mention adds a little.
function confidenceOf(strength: number, mentions: number): number {
  const base =
    strength >= 4
      ? 0.95
      : strength >= 3
        ? 0.9
        : strength >= 2.5
          ? 0.88
          : strength >= 2
            ? 0.85
            : strength >= 1.5
              ? 0.72
              : 0.6;
  return round(Math.min(0.98, base + 0.03 * Math.min(3, mentions - 1)));
}

/**
 * What a rule typed as an organisation but the corpus rules say is not one: a word of the language
 * alone guessed from context ("with Maintenance"), a phrase opening with a preposition ("to the
 * Association"), a venue ("Harrogate Convention Centre", "Eastfield Community Centre") and a body
 * inside an organisation named only by ordinary words ("Executive Committee", "Battery Working Group").
 */
function notAnOrganization(m: Mention, ctx: DocumentContext): boolean {
  if (m.kind !== 'organization' || LEGAL_SUFFIXES.has(m.tokens[m.tokens.length - 1]!)) return false;
  // A gazetteer's or a legal form's evidence (strength 3 and more) outweighs a word's being ordinary.
  if (m.tokens.length === 1)
    return (
      m.strength < 3 &&
      !/^\p{Lu}{2,}$/u.test(m.name) &&
      (isCommon(m.key, ctx) || /(?:tion|sion|ment|ness|ance|ence|ity|ship)$/.test(m.key))
    );
  if (/^(?:to|for|of|and|in|on|at|by|with|from)\s/i.test(m.name)) return true;
  // "Regional Finance Leads", "All Site Managers": people by their role, not a body.
  const plural = m.tokens[m.tokens.length - 1]!;
  if (
    m.strength < 3 &&
    /s$/.test(plural) &&
    ROLE_WORDS.has(plural.slice(0, -1)) &&
    !STRONG_ORG_HEADS.has(plural) &&
    m.tokens.slice(0, -1).every((t) => isCommon(t, ctx) || /(?:al|ive|ic|ous|ary)$/.test(t))
  )
    return true;
  const last = m.tokens[m.tokens.length - 1]!;
  if ((last === 'centre' || last === 'center') && VENUE_KINDS.has(m.tokens[m.tokens.length - 2]!)) return true;
  return INTERNAL_BODIES.has(last) && m.tokens.slice(0, -1).every((t) => isCommon(t, ctx) || INTERNAL_BODIES.has(t));
}
const VENUE_KINDS = new Set(
  'community convention conference exhibition shopping business sports leisure visitor youth distribution fulfilment fulfillment logistics civic cultural'.split(
    ' ',
  ),
);
const INTERNAL_BODIES = new Set(
  'committee department team division conference working group taskforce unit'.split(' '),
);

// "Baggot Street Upper", "Connaught Road Central": a street, whatever a rule made of it.
function isAddress(m: Mention): boolean {
  return (
    m.kind === 'organization' &&
    m.tokens.length >= 2 &&
    m.tokens.slice(1).some((t) => STREET_WORDS.has(t)) &&
    !LEGAL_SUFFIXES.has(m.tokens[m.tokens.length - 1]!) &&
    // "Nationwide Building Society": a street word inside a name an organisation's head closes.
    !STRONG_ORG_HEADS.has(m.tokens[m.tokens.length - 1]!)
  );
}

function isShortFormOf(short: Mention, full: Mention): boolean {
  if (short.tokens.length >= full.tokens.length) return false;
  if (short.kind === 'person') {
    // "Alvarez" of "Victor Alvarez", "van der Berg" of "Joost van der Berg", "Tom" of "Tom Becker".
    const tail = full.tokens.slice(full.tokens.length - short.tokens.length).join(' ');
    const head = full.tokens.slice(0, short.tokens.length).join(' ');
    return tail === short.key || (short.tokens.length === 1 && head === short.key);
  }
  if (short.kind === 'organization') {
    const core = (tokens: string[]) => (LEGAL_SUFFIXES.has(tokens[tokens.length - 1]!) ? tokens.slice(0, -1) : tokens);
    const s = core(short.tokens);
    const f = core(full.tokens);
    return s.length > 0 && s.length <= f.length && s.every((t, i) => f[i] === t);
  }
  return false;
}
