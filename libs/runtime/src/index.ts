export * from './config';
export * from './kafka-config';
export * from './database';
export * from './tokens';
export * from './infra-module';
export * from './lifecycle';
export * from './memory-deletions';
export * from './extraction-jobs';
