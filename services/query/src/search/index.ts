export * from './search-route';
export { searchMemory, candidatesInCut, type SearchInput, type SearchResult } from './search';
