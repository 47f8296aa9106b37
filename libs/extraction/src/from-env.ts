import type { Extractor } from './port';
import { llmExtractorFromEnv } from './llm';
import { createRulesExtractor, type RulesExtractorOptions } from './rules/extractor';

/**
 * The turns' extractor a process uses: the LLM one when EXTRACTION_URL is set, else the default one
 * (no LLM), with `rules` (e.g. the name similarity of the process's embedding model).
 */
export function extractorFromEnv(env: Record<string, string | undefined> = process.env, rules: RulesExtractorOptions = {}): Extractor {
  return llmExtractorFromEnv(env) ?? createRulesExtractor(rules);
}
