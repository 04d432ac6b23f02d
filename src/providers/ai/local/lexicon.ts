import nlp from 'compromise';

// compromise's built-in lexicon (about 24,000 words and names with their tags) and its lists of
// organisation and place head words, read directly: the full tagger costs ~50 µs a word, far too
// slow for a five-page document in our budget, while a lexicon look-up is a map read.

interface CompromiseModel {
  one: { lexicon: Record<string, string | string[]> };
  two: { orgWords?: Record<string, boolean>; placeWords?: Record<string, boolean> };
}

const model = nlp.model() as unknown as CompromiseModel;
const lexicon = model.one.lexicon;
const EMPTY: readonly string[] = [];

/** compromise's tags for a lower-case word or phrase (`[]` when unknown). */
export function lexiconTags(lower: string): readonly string[] {
  const tags = lexicon[lower];
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

/** Head words of organisation names from compromise ("bank", "university", "airlines", …). */
export const ORG_WORDS: ReadonlySet<string> = new Set(Object.keys(model.two.orgWords ?? {}));
/** Head words of geographic names from compromise ("bay", "lake", "mountains", …). */
export const PLACE_WORDS: ReadonlySet<string> = new Set(Object.keys(model.two.placeWords ?? {}));
