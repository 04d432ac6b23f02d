import { errors } from './errors.ts';

/**
 * The one rule for names people give things that others will read (folder and document names,
 * docs/api-decisions.md "Names"): a name is what it looks like.
 *
 * - Stored in Unicode NFC and trimmed, so one visible name has one spelling.
 * - No control characters (Cc), line or paragraph separators, text-direction controls (U+202A–202E,
 *   U+2066–2069, U+200E, U+200F, U+061C) or other invisible format characters (Cf: zero-width
 *   space, word joiner, BOM, soft hyphen, tags...), and no Hangul fillers (invisible letters).
 *   Kept where writing needs them: a zero-width joiner between two emoji (👨‍👩‍👧) and a zero-width
 *   (non-)joiner between two letters of a script that joins (Arabic, Persian, Indic scripts...);
 *   emoji tag sequences (🏴 + tags + cancel tag: the flags of England, Scotland, Wales).
 * - Not `.` or `..`; at most 255 characters.
 * - Siblings are compared by `nameKey`: compatibility-normalised (NFKC) and case-folded, so `Café`
 *   written precomposed or decomposed, `ﬁle` and `file`, `STRASSE` and `straße` are one name.
 *
 * Names given in a JSON body are refused (400 naming the field); names that come with a file
 * (uploads, imports) are cleaned instead (`sanitiseName`), since refusing a whole file for an
 * invisible character in its name helps nobody.
 */

export const MAX_NAME_LENGTH = 255;

const JOINING_SCRIPTS = [
  'Arabic',
  'Syriac',
  'Thaana',
  'Nko',
  'Mongolian',
  'Devanagari',
  'Bengali',
  'Gurmukhi',
  'Gujarati',
  'Oriya',
  'Tamil',
  'Telugu',
  'Kannada',
  'Malayalam',
  'Sinhala',
]
  .map((script) => `\\p{Script=${script}}`)
  .join('');
const JOINING_LETTER = `[${JOINING_SCRIPTS}]`;
const EMOJI = '\\p{Extended_Pictographic}';
const EMOJI_MODIFIERS = '[\\u{FE0F}\\u{1F3FB}-\\u{1F3FF}]*';

// The uses of otherwise refused characters that writing needs; masked before the check.
const NEEDED_INVISIBLES = new RegExp(
  [
    `(?<=${EMOJI}${EMOJI_MODIFIERS})\\u200D(?=${EMOJI})`,
    `(?<=${JOINING_LETTER}\\p{M}*)[\\u200C\\u200D](?=${JOINING_LETTER})`,
    `(?<=\\u{1F3F4})[\\u{E0020}-\\u{E007E}]+\\u{E007F}`,
  ].join('|'),
  'gu',
);

// Cc and Cf cover controls, bidi controls and the zero-width characters; Zl and Zp the separators.
const REFUSED = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0]/u;
const REFUSED_ALL = new RegExp(REFUSED.source, 'gu');

const CHARACTER_NAMES: Record<number, string> = {
  0x061c: 'ARABIC LETTER MARK',
  0x00ad: 'SOFT HYPHEN',
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x2028: 'LINE SEPARATOR',
  0x2029: 'PARAGRAPH SEPARATOR',
  0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING',
  0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x2060: 'WORD JOINER',
  0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE',
  0x2068: 'FIRST STRONG ISOLATE',
  0x2069: 'POP DIRECTIONAL ISOLATE',
  0xfeff: 'ZERO WIDTH NO-BREAK SPACE',
};

/** `U+202E RIGHT-TO-LEFT OVERRIDE`, for messages. */
function describe(codePoint: number): string {
  const hex = `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
  const name =
    CHARACTER_NAMES[codePoint] ?? (codePoint < 0x20 || (codePoint >= 0x7f && codePoint <= 0x9f) ? '(control)' : null);
  return name ? `${hex} ${name}` : hex;
}

/** The name as stored: NFC, without surrounding white space. */
export function normaliseName(raw: string): string {
  return raw.normalize('NFC').trim();
}

/** Why a normalised name is not acceptable, or null. `separators` are characters it may not hold (`/`). */
export function nameProblem(name: string, separators: readonly string[] = []): string | null {
  if (name.length === 0) return 'must not be empty';
  if (name.length > MAX_NAME_LENGTH) return `must be at most ${MAX_NAME_LENGTH} characters`;
  if (!name.isWellFormed()) return 'must be valid Unicode text (it holds a lone surrogate)';
  if (name === '.' || name === '..') return `must not be "${name}"`;
  const separator = separators.find((s) => name.includes(s));
  if (separator) return `must not contain "${separator}"`;
  const masked = name.replace(NEEDED_INVISIBLES, (kept) => 'x'.repeat(kept.length));
  const found = REFUSED.exec(masked);
  if (found) {
    const codePoint = masked.codePointAt(found.index)!;
    const position = [...masked.slice(0, found.index)].length + 1;
    return `must not contain invisible, control or text-direction characters: ${describe(codePoint)} at character ${position}`;
  }
  return null;
}

/** A name from a JSON body, normalised; 400 `validation_error` naming `field` when it breaks the rule. */
export function acceptName(raw: string, field: string, separators: readonly string[] = []): string {
  const name = normaliseName(raw);
  const problem = nameProblem(name, separators);
  if (problem) throw errors.field(field, problem);
  return name;
}

/**
 * A name that came with a file, cleaned: refused characters dropped (those writing needs kept),
 * NFC, trimmed. '' when nothing usable is left (empty, `.` or `..`). Length is the caller's.
 */
export function sanitiseName(raw: string): string {
  const text = raw.toWellFormed();
  let kept = '';
  let from = 0;
  for (const needed of text.matchAll(NEEDED_INVISIBLES)) {
    kept += text.slice(from, needed.index).replace(REFUSED_ALL, '') + needed[0];
    from = needed.index + needed[0].length;
  }
  const name = normaliseName(kept + text.slice(from).replace(REFUSED_ALL, ''));
  return name === '.' || name === '..' ? '' : name;
}

/** The first `length` UTF-16 units of a name, never ending in half a surrogate pair. */
export function truncateName(name: string, length: number): string {
  return name.length <= length ? name : name.slice(0, length).replace(/[\uD800-\uDBFF]$/, '');
}

/** What siblings are compared by: NFKC, case-folded (upper then lower case folds `ß` into `ss`). */
export function nameKey(name: string): string {
  return name.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
}
