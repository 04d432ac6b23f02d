import { createRequire } from 'node:module';
import type Nlp from 'compromise';

// compromise's built-in lexicon (about 24,000 words and names with their tags) and its lists of
// organisation and place head words, read directly: the full tagger costs ~50 µs a word, far too
// slow for a five-page document in our budget, while a lexicon look-up is a map read.
//
// compromise loads on the first look-up, not at start (~170 ms quiet, 0.5 s loaded, and its heap):
// every process imports this module through the AI provider, and the API process, the CLI and most
// test processes never read a document's names. Same package, its CommonJS build (the same lexicon).

interface CompromiseModel {
  one: { lexicon: Record<string, string | string[]> };
  two: { orgWords?: Record<string, boolean>; placeWords?: Record<string, boolean> };
}

const load = createRequire(import.meta.url);
let model: CompromiseModel | undefined;
const compromiseModel = () => (model ??= (load('compromise') as typeof Nlp).model() as unknown as CompromiseModel);

const EMPTY: readonly string[] = [];

/** compromise's tags for a lower-case word or phrase (`[]` when unknown). */
export function lexiconTags(lower: string): readonly string[] {
  const tags = compromiseModel().one.lexicon[lower];
  if (tags === undefined) return EMPTY;
  return Array.isArray(tags) ? tags : [tags];
}

const FIRST_NAME_TAGS = new Set(['FemaleName', 'MaleName', 'FirstName']);
const PLACE_TAGS = new Set(['City', 'Country', 'Region', 'Place']);

/** A given name the lexicon knows ("eleanor", "kenji" is not). */
export const isFirstName = (lower: string) => lexiconTags(lower).some((t) => FIRST_NAME_TAGS.has(t));
/** A family name the lexicon knows. */
export const isLastName = (lower: string) => lexiconTags(lower).includes('LastName');
/** A city, region or country the lexicon knows ("berlin", "new york", "texas"). */
export const isKnownPlace = (lower: string) => lexiconTags(lower).some((t) => PLACE_TAGS.has(t));
/** A country the lexicon knows. */
export const isCountry = (lower: string) => lexiconTags(lower).includes('Country');
/** A well-known organisation ("google", "goldman sachs"). */
export const isKnownOrganization = (lower: string) => {
  const tags = lexiconTags(lower);
  return tags.includes('Organization') && !tags.includes('Abbreviation');
};
/** A word the lexicon knows as something other than a name or a place: a hint it is an ordinary word. */
export function isCommonWord(lower: string): boolean {
  const tags = lexiconTags(lower);
  return (
    tags.length > 0 &&
    !tags.some(
      (t) =>
        FIRST_NAME_TAGS.has(t) ||
        PLACE_TAGS.has(t) ||
        t === 'LastName' ||
        t === 'Organization' ||
        t === 'ProperNoun' ||
        t === 'Person',
    )
  );
}

/** A set filled on its first use (any member: `has`, `size`, iteration). */
function lazySet(fill: () => Iterable<string>): ReadonlySet<string> {
  let set: Set<string> | undefined;
  const methods = new Map<PropertyKey, unknown>();
  return new Proxy(new Set<string>(), {
    get(_empty, key) {
      set ??= new Set(fill());
      const value: unknown = Reflect.get(set, key, set);
      if (typeof value !== 'function') return value;
      // Bound once: `ORG_WORDS.has(word)` runs for each word of a document.
      if (!methods.has(key)) methods.set(key, value.bind(set));
      return methods.get(key);
    },
  });
}

/** Head words of organisation names from compromise ("bank", "university", "airlines", …). */
export const ORG_WORDS = lazySet(() => Object.keys(compromiseModel().two.orgWords ?? {}));
/** Head words of geographic names from compromise ("bay", "lake", "mountains", …). */
export const PLACE_WORDS = lazySet(() => Object.keys(compromiseModel().two.placeWords ?? {}));
