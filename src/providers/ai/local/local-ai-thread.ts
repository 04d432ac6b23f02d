import { parentPort } from 'node:worker_threads';
import type { ChatTurn, Passage } from '../ai-provider.ts';
import { LocalAiProvider } from './local-provider.ts';

// The thread side of threaded-local-provider.ts: the local provider's text work (summaries,
// key phrases, entities, embeddings, composing chat answers) runs here, off the event loop that
// serves requests.

export type LocalAiRequest =
  | { id: number; op: 'summarize'; text: string }
  | { id: number; op: 'extractTags'; text: string; limit?: number }
  | { id: number; op: 'enrich'; text: string; referenceDate?: number; tagLimit?: number; knownTags?: string[] }
  | { id: number; op: 'extractEntities'; text: string; referenceDate?: number }
  | { id: number; op: 'embed'; texts: string[] }
  | { id: number; op: 'answer'; question: string; passages: Passage[]; history: ChatTurn[] };

export type LocalAiResponse = { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };

const port = parentPort;
if (port) {
  const provider = new LocalAiProvider();
  port.on('message', async (request: LocalAiRequest) => {
    try {
      let value: unknown;
      if (request.op === 'summarize') value = await provider.summarize(request.text);
      else if (request.op === 'extractTags') value = await provider.extractTags(request.text, { limit: request.limit });
      else if (request.op === 'enrich') {
        const { text, referenceDate, tagLimit, knownTags } = request;
        value = await provider.enrich(text, {
          referenceDate: referenceDate === undefined ? undefined : new Date(referenceDate),
          tagLimit,
          knownTags,
        });
      } else if (request.op === 'extractEntities') {
        value = await provider.extractEntities(
          request.text,
          request.referenceDate === undefined ? {} : { referenceDate: new Date(request.referenceDate) },
        );
      } else if (request.op === 'answer')
        value = await provider.composeAnswer(request.question, request.passages, request.history);
      else value = await provider.embed(request.texts);
      port.postMessage({ id: request.id, ok: true, value } satisfies LocalAiResponse);
    } catch (error) {
      port.postMessage({
        id: request.id,
        ok: false,
        message: error instanceof Error ? error.message : String(error),
      } satisfies LocalAiResponse);
    }
  });
}
