// Entry of the rebuild thread: a worker runs plain Node, so TypeScript is compiled on load (tsx), as `npm start` does.
require('tsx/cjs/api').register();
require('./rebuild-worker.ts');
