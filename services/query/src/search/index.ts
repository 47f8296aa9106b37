export * from './search-route';
export { searchMemory, warmSearch, type SearchInput, type SearchResult } from './search';
export { SearchCorpora, type CorporaOptions, type ErasureMark, DEFAULT_CORPORA } from './corpora';
export type { CutItems } from './cut-items';
export { type RecallBackend, type RecallRequest, type RecallResult, type RecallHit, itemKey } from './recall-backend';
export { embeddedRecall, type VectorSource } from './embedded-recall';
export { projectedVectors } from './projected-vectors';
export { openSearchRecall, type OpenSearchProgress } from './opensearch-recall';
