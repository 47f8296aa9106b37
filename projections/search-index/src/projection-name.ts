/** The search projection's name: its checkpoint row. */
export const SEARCH_INDEX_PROJECTION = 'search-index';
