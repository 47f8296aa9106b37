export * from './command-handler';
export * from './clock';
export * from './http-routes';
export * from './module';
export * from './memory-deletion';
export * from './retention-sweeps';
export * from './turn-intake';
