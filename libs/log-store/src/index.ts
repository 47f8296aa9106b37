export * from './port';
export { PostgresLogStore, type PostgresLogStoreOptions } from './postgres/postgres-log-store';
export { logStoreMigrations, EventStoreSchema1763769600000, StreamDeletions1796300000000 } from './postgres/migrations';
export { deleteStreamIn, streamDeletionsAfter, lastStreamDeletion, STREAM_DELETED_CHANNEL, type StreamDeletion } from './postgres/delete-stream';
export { StreamDeletionWatcher, type StreamDeletionWatcherOptions } from './postgres/stream-deletion-watcher';
export { describeLogStoreConformance, type LogStoreFactory } from './testing/conformance';
export { KurrentLogStore, type KurrentLogStoreOptions } from './kurrent/kurrent-log-store';
