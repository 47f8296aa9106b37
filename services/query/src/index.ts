export * from './check-route';
export { claimReader } from './claim-reader';
export * from './consistency';
export * from './http-routes';
export * from './module';
export * from './polling-progress';
export * from './replay-queries';
export * from './verify';
