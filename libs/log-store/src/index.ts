export * from './port';
export { PostgresLogStore, type PostgresLogStoreOptions } from './postgres/postgres-log-store';
export { logStoreMigrations, EventStoreSchema1763769600000 } from './postgres/migrations';
export { describeLogStoreConformance, type LogStoreFactory } from './testing/conformance';
export { KurrentLogStore, type KurrentLogStoreOptions } from './kurrent/kurrent-log-store';
