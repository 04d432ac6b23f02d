import type { AiProvider } from './ai-provider.ts';
import { LocalAiProvider } from './local/local-provider.ts';
import { ThreadedLocalAiProvider } from './local/threaded-local-provider.ts';
import { OpenAiProvider, type OpenAiProviderConfig } from './openai/openai-provider.ts';

/** What `createAiProvider` needs; `openai` is required when `provider` is 'openai'. */
export interface AiProviderConfig {
  provider: 'local' | 'openai';
  openai?: OpenAiProviderConfig;
  /** Run the local provider's document work in a worker thread (the service does; tests and tools need not). */
  threaded?: boolean;
}

/** Builds the configured provider. The OpenAI SDK is loaded on first use, not here. */
export function createAiProvider(config: AiProviderConfig): AiProvider {
  if (config.provider === 'local') return config.threaded ? new ThreadedLocalAiProvider() : new LocalAiProvider();
  if (!config.openai) throw new Error("AI provider 'openai' needs its openai settings (chat and embedding models)");
  return new OpenAiProvider(config.openai);
}
