export { readModelMigrations, ReadModelsSchema1763856000000 } from './schema';
export { readModelsProjection, READ_MODELS_PROJECTION } from './read-models-projection';
export { PostgresMemoryQueries } from './postgres-memory-queries';
export { PostgresSearchFeed, type FeedErasure } from './postgres-search-feed';
export { MergeForest } from './merge-forest';
export { rebuildReadModels, snapshotSearchPath, dropSchema, type RebuildOptions, type RebuildProgress, type RebuildResult } from './rebuild';
export { dropMemoryReadModels } from './drop-memory';
export { ItemTiers, type ItemKey, type ItemStats, deleteMemoryItemTiersIn } from './item-tiers';
