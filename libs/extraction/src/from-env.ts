import type { Extractor } from './port';
import { llmExtractorFromEnv } from './llm';
import { createRulesExtractor } from './rules/extractor';

/** The turns' extractor a process uses: the LLM one when EXTRACTION_URL is set, else the default one (no LLM). */
export function extractorFromEnv(env: Record<string, string | undefined> = process.env): Extractor {
  return llmExtractorFromEnv(env) ?? createRulesExtractor();
}
