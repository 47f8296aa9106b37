export * from './documents';
export * from './cut-filter';
export * from './intervals';
export * from './opensearch-item-index';
export * from './search-projection';
export * from './visible-intervals';
export * from './faults';
