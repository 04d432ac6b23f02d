import { findCity, findCountry } from './gazetteer.ts';
import { LEGAL_SUFFIXES, STRONG_ORG_HEADS } from './name-words.ts';

// Who was paid on a bank or mobile-money statement: the merchant written after the kind of
// transaction ("Card payment GREENGROCER STORES 2417 PERTH", "Pay Bill to 123456 - LAKESIDE WATER Acc. 7701…").
// Those lines are in capitals, so the capitalisation rules alone cannot tell a name from its town or reference.

/** Where a payee's name is in the text. */
export interface Payee {
  name: string;
  start: number;
  end: number;
}

const KIND =
  /\b(?:card payment|card refund|card purchase|contactless(?: payment)?|pos purchase|direct debit|standing order|bill payment|salary|pay bill to|merchant payment to|buy goods (?:from|to)|withdrawal at agent till|payment to|transfer to|transfer from)\s+(?:(?:to|from)\s+)?(?:\d+\s*[-–]\s*)?/gi;
/** The name: capitals, with "&", "'", "." and "-" inside, and "for"/"of" between words ("TRANSIT FOR LEEDS"). */
const NAME = /^[A-Z][A-Z&'.-]*(?![a-z])(?:\s+(?:[A-Z][A-Z&'.-]*(?![a-z])|FOR|OF|AND))*/;

/** Payees of transaction lines, each ending before a number, a reference ("Acc.", "Ref") or the town of the shop. */
export function findPayees(text: string): Payee[] {
  const out: Payee[] = [];
  for (const kind of text.matchAll(KIND)) {
    const start = kind.index + kind[0].length;
    const name = NAME.exec(text.slice(start, start + 80))?.[0];
    if (!name) continue;
    // "STREAMBOX.COM": the shop's web address names it.
    const words = name.replace(/\.(?:COM|NET|ORG|CO\.UK)\b.*$/, '').split(/\s+/);
    // "B MACDONALD RENT": an initial opens a person's name, not a company's.
    if (/^[A-Z]\.?$/.test(words[0]!)) continue;
    let keep = 0;
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!.replace(/\.$/, '').toLowerCase();
      if (/^(?:acc|a\/c|ref|reference|no|till|pay|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|jan|feb)$/.test(w)) break;
      // "… HIGHLAND RAIL PERTH STATION": the town of the shop ends the name, unless joined by "for"/"of".
      const joined = i > 0 && /^(?:for|of)$/i.test(words[i - 1]!);
      if (i > 0 && !joined && (findCity(w) !== null || findCountry(w) !== null)) break;
      keep = i + 1;
      // "… FERRIES LTD MAR PAY", "DUNMORE DISTRICT COUNCIL CTAX": a legal form or a head closes the name.
      if (LEGAL_SUFFIXES.has(w) || STRONG_ORG_HEADS.has(w)) break;
    }
    while (keep > 0 && /^(?:for|of|and)$/i.test(words[keep - 1]!)) keep--;
    if (keep === 0) continue;
    const kept = words.slice(0, keep).join(' ');
    // Letters only (a reference code is not a name); a lone short word is too little to go on.
    if (!/[A-Z]{3}/.test(kept) || (keep === 1 && kept.length < 4)) continue;
    const end = start + name.indexOf(words[keep - 1]!, kept.length - words[keep - 1]!.length) + words[keep - 1]!.length;
    out.push({ name: text.slice(start, end).replace(/\s+/g, ' '), start, end });
  }
  return out;
}
