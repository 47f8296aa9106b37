export * from './run-projector';
export * from './rebuild-job';
export * from './admin-routes';
export * from './work-sharing';
