export * from './http-error';
export * from './metrics';
export * from './server';
export * from './auth';
export { DOCS_JSON_PATHS, DOCS_PATH, prefersHtml } from './docs';
export { registerTextBodyParser } from './body-parsers';
export * from './free-port';
export type { StorageFault } from './database-unavailable';
