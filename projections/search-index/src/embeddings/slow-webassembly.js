// Preloaded (`--require`) by a test into the USE-lite worker: WebAssembly compiles 500 ms late, as the
// TensorFlow.js backend starts on a busy machine, while the model's weights are already read.
'use strict';
for (const name of ['compile', 'instantiate']) {
  const real = WebAssembly[name].bind(WebAssembly);
  WebAssembly[name] = (...args) => new Promise((resolve) => setTimeout(resolve, 500)).then(() => real(...args));
}
