// Spans of time written in a text: "thirty (30) days", "12 months", "ninety days'", "two weeks",
// "24 hours", "six-month". What "how long" and "within how many days" questions ask for.

/** A duration found in a text and where. */
export interface DurationMention {
  text: string;
  start: number;
  end: number;
}

const NUMBER_WORDS =
  'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|forty-five|fifty|sixty|seventy|eighty|ninety|hundred|a|an';
const UNIT =
  '(?:business |working |calendar |banking )?(?:days?|weeks?|months?|years?|hours?|hrs?|minutes?|mins|quarters?)';
const DURATION = new RegExp(
  `\\b(?:(?:\\d{1,4}(?:[.,]\\d+)?|(?:${NUMBER_WORDS})(?:[- ](?:${NUMBER_WORDS}))?)(?:\\s*\\(\\d{1,4}\\))?[- ]${UNIT}|(?:${NUMBER_WORDS}|\\d{1,3})-(?:day|week|month|year|hour)\\b)(?:['’]|\\b)`,
  'gi',
);

/** Every duration in the text, in order. */
export function findDurations(text: string): DurationMention[] {
  const out: DurationMention[] = [];
  for (const m of text.matchAll(DURATION)) {
    // "a year" after "per" is a rate, "once a month" or "three times a week" a frequency: not spans.
    if (/^an? /i.test(m[0]) && /\b(?:per|once|twice|times)\s*$/i.test(text.slice(Math.max(0, m.index - 8), m.index)))
      continue;
    out.push({ text: m[0], start: m.index, end: m.index + m[0].length });
  }
  return out;
}
