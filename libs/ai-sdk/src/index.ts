export { type MemoryToolsOptions, memoryTools, relationId } from './tools';
export { type MemoryContextOptions, lastUserText, memoryContextMiddleware, renderContext } from './context-middleware';
