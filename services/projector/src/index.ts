export * from './run-projector';
