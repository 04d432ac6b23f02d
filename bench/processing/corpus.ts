import { docx } from '../../test/fixtures/extraction/office.ts';
import { pdf } from '../../test/fixtures/extraction/pdf.ts';

// A mixed corpus of business documents of about five pages each: text PDFs, DOCX and TXT.

const PEOPLE = ['Anna Berg', 'Tomas Novak', 'Grace Liu', 'Samuel Okafor', 'Lena Fischer', 'Diego Alvarez'];
const ORGS = ['Northwind Traders Ltd', 'Contoso Corporation', 'Fabrikam Inc.', 'Tailspin Toys GmbH', 'Litware LLC'];
const TOPICS = ['invoice', 'maintenance', 'contract', 'budget', 'onboarding', 'security review', 'shipment', 'audit'];
const WORDS =
  'the project team reviewed quarterly results and agreed on next steps for delivery schedule risk budget supplier customer warehouse inventory report analysis approval payment terms service level migration training policy compliance'.split(
    ' ',
  );

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** About `words` words of plausible prose, in sentences, mentioning people, organisations and dates. */
export function prose(seed: number, words: number): string[] {
  const r = rng(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
  const sentences: string[] = [];
  let count = 0;
  while (count < words) {
    const n = 8 + Math.floor(r() * 12);
    const body = Array.from({ length: n }, () => pick(WORDS)).join(' ');
    const s = `${pick(PEOPLE)} of ${pick(ORGS)} discussed the ${pick(TOPICS)} on March ${1 + Math.floor(r() * 27)}, 2026: ${body}.`;
    sentences.push(s);
    count += n + 9;
  }
  return sentences;
}

export interface CorpusFile {
  filename: string;
  bytes: Buffer;
}

/** The i-th document of the corpus: PDF, DOCX and TXT in turn, each about `pages` pages of 500 words. */
export async function corpusFile(i: number, pages = 5): Promise<CorpusFile> {
  const sentences = prose(i + 1, pages * 500);
  const kind = i % 3;
  if (kind === 0) {
    const perPage = Math.ceil(sentences.length / pages);
    const pageLines = Array.from({ length: pages }, (_, p) => ({
      lines: sentences.slice(p * perPage, (p + 1) * perPage),
    }));
    return { filename: `report-${i}.pdf`, bytes: pdf(pageLines, { author: 'Bench', title: `Report ${i}` }) };
  }
  if (kind === 1) return { filename: `memo-${i}.docx`, bytes: await docx(sentences) };
  return { filename: `notes-${i}.txt`, bytes: Buffer.from(sentences.join('\n')) };
}
