export * from './port';
export { ExtractionFailedError, failureSummary } from './errors';
export { extractorFromEnv } from './from-env';
export { createRulesExtractor, RULES_EXTRACTOR_NAME, RULES_EXTRACTOR_VERSION, type RulesExtractorOptions } from './rules/extractor';
export type { NameSimilarity } from './rules/entities';
export * from './llm';
export { CANONICAL, cardinalityOf, relationKey, reuse, type CanonicalRelation } from './relations';
export { isCopy } from './copies';
