export * from './http-error';
export * from './metrics';
export * from './server';
export * from './auth';
export { registerTextBodyParser } from './body-parsers';
export * from './free-port';
