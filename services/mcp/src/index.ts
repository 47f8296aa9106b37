export * from './server';
export * from './tools';
export * from './http-route';
