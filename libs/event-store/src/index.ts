export * from './port';
export { PostgresEventStore, type PostgresEventStoreOptions } from './postgres/postgres-event-store';
export { eventStoreMigrations, EventStoreSchema1763769600000 } from './postgres/migrations';
export { describeEventStoreConformance, type EventStoreFactory } from './testing/conformance';
export { KurrentEventStore, type KurrentEventStoreOptions } from './kurrent/kurrent-event-store';
