import { fork } from 'node:child_process';
import { join } from 'node:path';
import { dot } from './port';
import { useLiteProvider } from './use-lite';

/** The offline default model: its weights come from the installed package, never the network. */
describe('useLiteProvider', () => {
  const realFetch = globalThis.fetch;
  beforeAll(() => {
    globalThis.fetch = (() => Promise.reject(new Error('network is off in this test'))) as typeof fetch;
  });
  afterAll(() => {
    globalThis.fetch = realFetch;
  });

  it('embeds offline into 512-d unit vectors, similar texts closer than unrelated ones', async () => {
    const [cat, kitten, stocks] = await useLiteProvider().embed([
      'The cat sleeps on the sofa',
      'A kitten is napping on the couch',
      'Quarterly stock market earnings report',
    ]);
    expect(cat).toHaveLength(512);
    expect(dot(cat!, cat!)).toBeCloseTo(1, 4);
    expect(dot(cat!, kitten!)).toBeGreaterThan(dot(cat!, stocks!));
  });

  it('embeds when the WebAssembly backend starts after the weights are read (a busy machine)', async () => {
    const child = fork(join(__dirname, 'use-lite-worker.js'), ['null'], {
      execArgv: ['--require', join(__dirname, 'slow-webassembly.js')],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    try {
      const reply = await new Promise<{ vectors?: number[][]; error?: string }>((resolve, reject) => {
        child.once('message', (message) => resolve(message as { vectors?: number[][]; error?: string }));
        child.once('exit', (code) => reject(new Error(`the worker exited (${code})`)));
        child.send({ id: 1, texts: ['The cat sleeps on the sofa'] });
      });
      expect(reply.error).toBeUndefined();
      expect(reply.vectors?.[0]).toHaveLength(512);
    } finally {
      child.kill();
    }
  });
});
