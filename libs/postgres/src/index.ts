export { startEmbeddedPostgres, type EmbeddedPostgresOptions, type RunningPostgres } from './embedded';
export { createPool, inTransaction, memotraceTypes, type PoolOptions } from './pool';
export { migrate, MIGRATIONS_TABLE, type MigrationInput } from './migrate';
export { createTestDatabase, type TestDatabase } from './testing/test-database';
export { takeOverEmbeddedShutdown } from './exit-hooks';
export { databaseFault, type DatabaseFault } from './faults';
