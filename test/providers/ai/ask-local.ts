import type { Passage } from '../../../src/providers/ai/ai-provider.ts';
import { chunkText } from '../../../src/providers/ai/chunking.ts';
import { LocalAiProvider } from '../../../src/providers/ai/local/local-provider.ts';

/** A small text written in a test, cut into passages the way documents are (80-token chunks). */
export const passagesOf = (text: string): Passage[] =>
  chunkText(text, { targetTokens: 80, overlapTokens: 10 }).map((c) => ({
    documentId: 'doc',
    text: c.text,
    page: c.page,
    score: 0.5,
  }));

const provider = new LocalAiProvider();

/** The local provider's chat answer to `question` over `text`. */
export const ask = async (question: string, text: string): Promise<string> =>
  (await provider.answer(question, passagesOf(text))).text;
