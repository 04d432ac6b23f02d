import { DOCUMENT_TYPES, type DocumentType, type Scored } from '../ai-provider.ts';

// What kind of document a text is, from the cues a reader goes by: the title in its first lines
// ("TAX INVOICE", "Minutes of the …"), the headers of an e-mail, and the vocabulary of each kind
// ("bill to", "amount due"; "landlord", "premises"; "disclosing party"). Each cue adds its weight
// once; a cue in the title counts three times. The best score wins when it clears a floor and
// the runner-up; the confidence says by how much.

interface Cue {
  pattern: RegExp;
  weight: number;
}

const cue = (pattern: RegExp, weight: number): Cue => ({ pattern, weight });

/** Titles: checked against the first lines only. */
const TITLES: Partial<Record<DocumentType, RegExp>> = {
  invoice: /^\W*(?:tax\s+|commercial\s+|vat\s+|pro[\s-]?forma\s+)?invoice\b|\binvoice\s+(?:no|number|#)/i,
  receipt: /^\W*(?:(?:payment|sales|cash|official)\s+)?receipt\b/i,
  purchase_order: /^\W*purchase\s+order\b|^\W*P\.?O\.?\s*(?:no|number|#)/i,
  quote: /^\W*(?:price\s+|sales\s+)?(?:quotation|quote|estimate)\b/i,
  contract:
    /\b(?:agreement|contract)\s*$|^\W*(?:master\s+|professional\s+)?(?:services?|supply|consulting|consultancy|framework|licen[cs]e|distribution|partnership|maintenance)\s+(?:agreement|contract)\b/i,
  lease:
    /\b(?:lease|tenancy)(?:\s+agreement)?\s*$|^\W*(?:commercial\s+|residential\s+|office\s+|assured\s+shorthold\s+)?(?:lease|tenancy)\b/i,
  nda: /\bnon[\s-]?disclosure\b|\bconfidentiality\s+agreement\b|^\W*(?:mutual\s+)?NDA\b/i,
  employment_letter:
    /\b(?:offer\s+(?:of\s+employment|letter)|letter\s+of\s+(?:offer|appointment)|employment\s+(?:offer|contract|agreement)|contract\s+of\s+employment)\b/i,
  policy:
    /^\W*(?:[\p{L}-]+\s+){0,5}(?:policy|code\s+of\s+conduct|procedure|standard\s+operating\s+procedure)\s*(?:\(|v\d|$)/iu,
  minutes: /^\W*minutes\b|\bminutes\s+of\b|\bmeeting\s+minutes\b/i,
  memo: /^\W*(?:internal\s+)?(?:memo|memorandum)\b/i,
  report: /^\W*(?:[\p{L}&-]+\s+){0,6}(?:report|review|assessment|audit|analysis|findings)\b/iu,
  cv: /^\W*(?:curriculum\s+vitae|r[ée]sum[ée]|cv)\b/i,
  statement:
    /\b(?:bank|account|card|credit\s+card|monthly|quarterly|annual)\s+statement\b|\bstatement\s+of\s+account\b/i,
};

/** Vocabulary of each kind, anywhere in the text. */
const CUES: Partial<Record<DocumentType, Cue[]>> = {
  invoice: [
    cue(/\binvoice\s*(?:no|number|#|date)\b/i, 3),
    cue(/\b(?:amount|balance|total)\s+due\b/i, 2),
    cue(/\bbill(?:ed)?\s+to\b/i, 2),
    cue(/\bdue\s+date\b|\bpayment\s+due\b/i, 1.5),
    cue(/\bpayment\s+terms\b|\bnet\s+\d{2}\b/i, 1),
    cue(/\bsubtotal\b/i, 1),
    cue(/\b(?:vat|gst|sales\s+tax)\b/i, 0.5),
    cue(/\binvoice\b/i, 1.5),
    cue(/\b(?:iban|swift|bic|sort\s+code|remit)\b/i, 0.5),
  ],
  receipt: [
    cue(/\breceipt\b/i, 2),
    cue(/\b(?:amount\s+)?paid\b|\bpayment\s+received\b/i, 1.5),
    cue(/\bcard\s+(?:ending|no|number)|\bvisa\b|\bmastercard\b|\bcash\b/i, 1),
    cue(/\bthank\s+you\s+for\s+(?:your\s+)?(?:purchase|shopping|payment|visit)/i, 1.5),
    cue(/\bchange\s+due\b|\bauth(?:orisation|orization)?\s+code\b/i, 1.5),
  ],
  purchase_order: [
    cue(/\bpurchase\s+order\b/i, 3),
    cue(/\bP\.?O\.?\s*(?:no|number|#)/i, 2),
    cue(/\bship\s+to\b|\bdeliver(?:y)?\s+to\b/i, 1),
    cue(/\bdelivery\s+date\b|\bdeliver\s+by\b|\brequired\s+by\b/i, 1.5),
    cue(/\bsupplier\b|\bvendor\b/i, 0.5),
    cue(/\bqty\b|\bquantity\b|\bunit\s+price\b/i, 0.5),
  ],
  quote: [
    cue(/\bquotation\b|\bquote\s*(?:no|number|#|ref)\b/i, 3),
    cue(/\bvalid\s+(?:until|for|through)\b|\bvalidity\b/i, 2),
    cue(/\bestimate\b/i, 1),
    cue(/\bquoted?\b/i, 1),
    cue(/\bto\s+accept\s+this\b|\bacceptance\b/i, 0.5),
  ],
  contract: [
    cue(/\bagreement\b/i, 1.5),
    cue(/\bparties\b|\bparty\b/i, 1.5),
    cue(/\bwhereas\b|\bhereinafter\b|\bhereby\b/i, 1.5),
    cue(/\bgoverning\s+law\b|\bjurisdiction\b/i, 1.5),
    cue(/\btermination\b|\bterminate\b/i, 1),
    cue(/\bin\s+witness\s+whereof\b|\bsigned\s+(?:for\s+and\s+)?on\s+behalf\s+of\b/i, 1.5),
    cue(/\bindemnif/i, 1),
    cue(/\bliability\b/i, 0.5),
    cue(/\bscope\s+of\s+(?:services|work)\b|\bservices\b/i, 0.5),
    cue(/\beffective\s+date\b/i, 1),
  ],
  lease: [
    cue(/\blandlord\b|\blessor\b/i, 2.5),
    cue(/\btenant\b|\blessee\b/i, 2),
    cue(/\bpremises\b|\bproperty\b/i, 1),
    cue(/\brent\b/i, 2),
    cue(/\b(?:security\s+)?deposit\b/i, 1),
    cue(/\blease\b|\btenancy\b/i, 2),
    cue(/\bper\s+(?:calendar\s+)?month\b|\bper\s+annum\b|\bmonthly\b/i, 0.5),
  ],
  nda: [
    cue(/\bconfidential\s+information\b/i, 3),
    cue(/\bdisclosing\s+party\b|\breceiving\s+party\b/i, 3),
    cue(/\bnon[\s-]?disclosure\b/i, 3),
    cue(/\bconfidentiality\b/i, 1),
    cue(/\bparties\b/i, 0.5),
    cue(/\bgoverning\s+law\b/i, 0.5),
  ],
  employment_letter: [
    cue(/\bpleased\s+to\s+offer\b|\boffer\s+(?:you\s+)?(?:the\s+)?(?:position|role|employment)\b/i, 3),
    cue(/\b(?:annual|base|gross)\s+salary\b|\bsalary\b/i, 2),
    cue(/\bstart(?:ing)?\s+date\b|\bcommence\s+(?:employment|work)\b/i, 1.5),
    cue(/\bprobation(?:ary)?\b/i, 1.5),
    cue(/\bannual\s+leave\b|\bholiday\s+entitlement\b|\bpaid\s+time\s+off\b/i, 1),
    cue(/\bposition\s+of\b|\brole\s+of\b|\bjob\s+title\b/i, 1.5),
    cue(/\breport(?:ing)?\s+to\b/i, 0.5),
    cue(/\bemployment\b/i, 1),
    cue(/\bnotice\s+period\b/i, 0.5),
  ],
  policy: [
    cue(/\bpolicy\b/i, 2),
    cue(/\bpurpose\b/i, 1),
    cue(/\bscope\b/i, 1),
    cue(/\bapplies\s+to\b|\bapplicable\s+to\b/i, 1),
    cue(/\b(?:employees|staff|personnel)\s+(?:must|shall|should|are\s+required)\b/i, 1.5),
    cue(/\bcompliance\b|\bbreach(?:es)?\s+of\s+this\b/i, 1),
    cue(/\bresponsibilities\b/i, 1),
    cue(/\bversion\s*\d|\breview(?:ed)?\s+(?:date|annually)\b|\bpolicy\s+owner\b/i, 1.5),
    cue(/\bprocedure\b/i, 0.5),
  ],
  minutes: [
    cue(/\bminutes\b/i, 2.5),
    cue(/^\s*(?:attendees|present|in\s+attendance|attendance)\s*:/im, 3),
    cue(/^\s*apologies\b/im, 2),
    cue(/\baction\s+(?:items?|points?)\b|^\s*actions?\s*:/im, 1.5),
    cue(/\bagenda\b/i, 1),
    cue(/\bmeeting\b/i, 1),
    cue(/\bchair(?:ed|person)?\b/i, 1),
    cue(/\bmotion\b|\bseconded\b|\bresolved\b|\bcarried\b/i, 1),
    cue(/\bnext\s+meeting\b/i, 1.5),
  ],
  memo: [
    cue(/\bmemo(?:randum)?\b/i, 3),
    cue(/^\s*to\s*:/im, 1),
    cue(/^\s*from\s*:/im, 1),
    cue(/^\s*(?:re|subject)\s*:/im, 1),
    cue(/\ball\s+staff\b|\ball\s+employees\b/i, 1),
  ],
  report: [
    cue(/\breport\b/i, 1.5),
    cue(/\bexecutive\s+summary\b/i, 2.5),
    cue(/\bfindings\b/i, 2),
    cue(/\brecommendations?\b/i, 1.5),
    cue(/\bmethodology\b/i, 1.5),
    cue(/\bconclusions?\b/i, 1),
    cue(/\bintroduction\b|\bbackground\b/i, 0.5),
    cue(/\banalysis\b|\bresults\b/i, 1),
    cue(/\bkey\s+(?:metrics|figures|highlights)\b|\bkpis?\b/i, 1),
    cue(/\b(?:Q[1-4]|quarter|year[\s-]over[\s-]year|yoy)\b/i, 0.5),
  ],
  letter: [
    cue(/^\s*dear\s+\p{Lu}/imu, 4),
    cue(/\byours\s+(?:sincerely|faithfully|truly)\b/i, 4),
    cue(/^\s*(?:kind|best|warm)\s+regards\b/im, 1),
    cue(/\bre\s*:/i, 0.5),
    cue(/\bwe\s+(?:write|are\s+writing)\b|\bI\s+am\s+writing\b/i, 1.5),
    cue(/\benclosed\b/i, 0.5),
  ],
  email: [
    cue(/^\s*from\s*:.*@/im, 3),
    cue(/^\s*(?:sent|date)\s*:/im, 1),
    cue(/^\s*to\s*:/im, 1),
    cue(/^\s*subject\s*:/im, 2),
    cue(/^\s*cc\s*:/im, 1.5),
    cue(/\b[\w.+-]+@[\w-]+\.[\w.]+\b/, 1),
    cue(/^\s*(?:hi|hello|hey)\s+\p{Lu}/imu, 1.5),
    cue(/^\s*(?:thanks|cheers|best)\s*,?\s*$/im, 1),
    cue(/-{2,}\s*original\s+message|^\s*on\s+.+\s+wrote\s*:/im, 2),
  ],
  cv: [
    cue(/\bcurriculum\s+vitae\b|\br[ée]sum[ée]\b/i, 3),
    cue(/^\s*(?:work\s+|professional\s+)?experience\s*$/im, 2.5),
    cue(/^\s*education\s*$/im, 2.5),
    cue(/^\s*(?:key\s+)?skills\b/im, 2),
    cue(/^\s*(?:profile|summary|professional\s+summary|objective)\s*$/im, 1.5),
    cue(/\breferences\s+(?:available|on\s+request)\b/i, 2),
    cue(/\b(?:b\.?sc|m\.?sc|mba|bachelor|master'?s|ph\.?d)\b/i, 1),
    cue(/^\s*(?:languages|certifications|interests)\s*$/im, 1),
  ],
  statement: [
    cue(/\bstatement\b/i, 2),
    cue(/\bopening\s+balance\b|\bbalance\s+brought\s+forward\b|\bprevious\s+balance\b/i, 3),
    cue(/\bclosing\s+balance\b|\bnew\s+balance\b/i, 3),
    cue(/\bstatement\s+(?:period|date)\b/i, 2),
    cue(/\baccount\s+(?:no|number|holder)\b/i, 1.5),
    cue(/\btransactions?\b/i, 1),
    cue(/\bdebits?\b|\bcredits?\b|\bwithdrawals?\b|\bdeposits?\b/i, 1),
    cue(/\bminimum\s+payment\b|\bavailable\s+balance\b/i, 1.5),
  ],
};

/** Titles in German, French, Spanish, Italian, Portuguese and Dutch: a short head line that is the title. */
const FOREIGN_TITLES: Partial<Record<DocumentType, RegExp>> = {
  invoice: /^\W*(?:rechnung|facture|factura|fattura|fatura|factuur)\b/iu,
  receipt: /^\W*(?:quittung|kassenbon|reçu|recibo|ricevuta|kwitantie|bon)\s*$/iu,
  purchase_order:
    /^\W*(?:bestellung|bon\s+de\s+commande|orden\s+de\s+compra|ordine\s+d['’]acquisto|pedido\s+de\s+compra|inkooporder)\b/iu,
  quote: /^\W*(?:angebot|kostenvoranschlag|devis|presupuesto|cotizaci[oó]n|preventivo|or[çc]amento|offerte)\b/iu,
  lease:
    /^\W*(?:mietvertrag|contrat\s+de\s+(?:bail|location)|bail|contrato\s+de\s+arrendamiento|contratto\s+di\s+locazione|huurovereenkomst)\b/iu,
  minutes: /^\W*(?:protokoll|sitzungsprotokoll|procès[\s-]verbal|acta|verbale|notulen)\b/iu,
  statement:
    /^\W*(?:kontoauszug|relevé\s+de\s+compte|extracto\s+(?:de\s+cuenta|bancario)|estratto\s+conto|extrato|rekeningafschrift)\b/iu,
};

/** Labels of the same kinds anywhere in the text ("Rechnungsnummer:", "Numéro de facture"). */
const FOREIGN_CUES: Partial<Record<DocumentType, RegExp>> = {
  invoice:
    /\b(?:rechnungs(?:nummer|datum|betrag)|(?:n[°o]|num[ée]ro)\s+de\s+(?:la\s+)?facture|n[úu]mero\s+de\s+factura|numero\s+(?:di\s+)?fattura|factuurnummer|n[úu]mero\s+da\s+fatura)\b/iu,
  quote: /\b(?:angebotsnummer|n[°o]\s+de\s+devis|validit[ée]\s+du\s+devis)\b/iu,
};

// A kind that another one refines: when both score, the refinement wins ties and near-ties.
const REFINES: Partial<Record<DocumentType, DocumentType[]>> = {
  nda: ['contract'],
  lease: ['contract'],
  employment_letter: ['letter', 'contract', 'email'],
  invoice: ['email', 'letter'],
  purchase_order: ['email', 'invoice'],
  quote: ['email', 'letter'],
  statement: ['report'],
  minutes: ['report', 'memo'],
  memo: ['email', 'letter'],
};

const HEAD_LINES = 8;
const FLOOR = 3;

/** The kind of document and how sure; every type's score too (for review and debugging). */
export function classifyDocument(text: string): Scored<DocumentType> & { scores: Record<DocumentType, number> } {
  const head = text
    .split(/\r?\n/)
    .map((l) => l.replace(/[*#_|=]+/g, ' ').trim())
    .filter((l) => l !== '')
    .slice(0, HEAD_LINES);
  const body = text.length > 40_000 ? `${text.slice(0, 30_000)}\n${text.slice(-10_000)}` : text;
  const scores = Object.fromEntries(DOCUMENT_TYPES.map((t) => [t, 0])) as Record<DocumentType, number>;
  for (const type of DOCUMENT_TYPES) {
    for (const c of CUES[type] ?? []) if (c.pattern.test(body)) scores[type] += c.weight;
    const title = TITLES[type];
    // The title is a short line of the head; a long one is prose that happens to use the word.
    if (
      title &&
      head.some((line, i) => line.length <= 80 && title.test(line) && (i < 4 || line === line.toUpperCase()))
    )
      scores[type] += 6;
  }
  // E-mail headers at the very top make an e-mail, whatever it carries.
  if (
    head.slice(0, 6).filter((l) => /^(?:from|to|sent|date|subject|cc)\s*:/i.test(l)).length >= 3 &&
    head.some((l) => /@/.test(l) || /^sent\s*:/i.test(l))
  ) {
    scores.email += 6;
  }
  // Titles and labels of other languages ("RECHNUNG", "Rechnungsnummer", "N° de facture").
  for (const [type, pattern] of Object.entries(FOREIGN_TITLES) as [DocumentType, RegExp][]) {
    if (head.some((line) => line.length <= 80 && pattern.test(line))) scores[type] += 6;
  }
  for (const [type, pattern] of Object.entries(FOREIGN_CUES) as [DocumentType, RegExp][]) {
    if (pattern.test(body)) scores[type] += 3;
  }
  for (const [type, refined] of Object.entries(REFINES) as [DocumentType, DocumentType[]][]) {
    for (const other of refined)
      if (scores[type] >= FLOOR + 3 && scores[other] > 0 && scores[type] >= scores[other] * 0.7)
        scores[type] = Math.max(scores[type], scores[other] + 0.5);
  }
  const ranked = DOCUMENT_TYPES.filter((t) => t !== 'other').sort((a, b) => scores[b] - scores[a]);
  const best = ranked[0]!;
  const top = scores[best];
  const runnerUp = scores[ranked[1]!];
  if (top < FLOOR) return { value: 'other', confidence: round(0.5 + (FLOOR - top) / (FLOOR * 4)), scores };
  // Margin over the runner-up and the weight of evidence both raise confidence.
  const margin = (top - runnerUp) / top;
  const evidence = Math.min(1, top / 12);
  return { value: best, confidence: round(Math.min(0.97, 0.45 + 0.35 * margin + 0.2 * evidence)), scores };
}

const round = (x: number) => Math.round(x * 100) / 100;
