import type { Segment } from '../segmentation.ts';

// A segment of the retrieved passages as a possible chat answer, shared by the extractive answerer
// (extractive-answer.ts, which scores them) and the list and follow-on rules (answer-lists.ts).

/** A segment of the passages as a possible answer, with how well it answers the question. */
export interface Candidate {
  passage: number;
  segment: Segment;
  /** Index of the segment in its passage. */
  order: number;
  stems: Set<string>;
  /** Stems of the heading above the segment. */
  context: Set<string>;
  typed: number;
  /** What its kind is worth as an answer (`KIND_WEIGHT`). */
  weight: number;
  /** The names of the asked kind found in its passage (who, where), for cutting a long segment around one. */
  names: WantedNames;
  coverage: number;
  score: number;
}

/** Names of the asked kind: `sure` ones (a person for who, a place for where) and `likely` ones (a venue's organisation). */
export interface WantedNames {
  sure: string[];
  likely: string[];
  /** "Which bank": a name of that kind by its shape ("Banque Saint-Gilles"), known to the extractor or not. */
  shape?: RegExp;
}

export const NO_NAMES: WantedNames = { sure: [], likely: [] };
