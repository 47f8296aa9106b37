// The channel of an embeddings script to the service, whichever host runs it: a worker thread
// (parentPort, workerData) or an idle child process (the IPC channel, data as its one argument).
'use strict';
const { parentPort, workerData } = require('node:worker_threads');

function workerPort() {
  if (parentPort) return { data: workerData, on: (listener) => parentPort.on('message', listener), post: (m) => parentPort.postMessage(m) };
  if (!process.send) throw new Error('an embeddings script runs as a worker thread or a forked child process');
  // The service is gone (even killed): nothing is left to embed for.
  process.on('disconnect', () => process.exit(0));
  return {
    data: JSON.parse(process.argv[2] ?? 'null'),
    on: (listener) => process.on('message', listener),
    post: (m) => process.send(m),
  };
}

module.exports = { workerPort };
