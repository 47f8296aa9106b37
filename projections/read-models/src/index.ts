export { readModelMigrations, ReadModelsSchema1763856000000 } from './schema';
export { readModelsProjection, READ_MODELS_PROJECTION, type PostgresProjection } from './read-models-projection';
export { startProjector, projectedPosition, type Projector, type ProjectorOptions } from './projector';
export { PostgresMemoryQueries } from './postgres-memory-queries';
export { PostgresSearchFeed } from './postgres-search-feed';
export { MergeForest } from './merge-forest';
export { partitionOf, checkpointName, layoutCheckpoints, type Partition } from './partitions';
export {
  rebuildReadModels,
  snapshotSearchPath,
  dropSchema,
  type RebuildOptions,
  type RebuildProgress,
  type RebuildResult,
} from './rebuild';
