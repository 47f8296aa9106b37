export {
  createLlmExtractor,
  DEFAULT_TIMEOUT_MS,
  LLM_EXTRACTOR_BASE_VERSION,
  LLM_EXTRACTOR_NAME,
  llmExtractorFromEnv,
  llmExtractorVersion,
  type LlmExtractor,
  type LlmExtractorOptions,
  type LlmUsage,
} from './llm-extractor';
export { readAnswer, type DroppedItem, type ReadAnswer } from './answer';
export { buildMessages, SYSTEM_PROMPT, type ChatMessage } from './prompt';
export { responseFormat } from './schema';
