import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { type TestService, startTestService } from '@memotrace/memotrace/testing';
import { PACKAGES, buildPackages } from './build';

/**
 * The packages as a user gets them: built, packed by npm, installed from the tarballs into an empty project
 * (their peers from the registry, at the versions this repository uses), then used there against a real
 * service by an ES module and a CommonJS script, and their declarations compiled by a TypeScript consumer.
 */

const repo = resolve(__dirname, '../..');
const run = promisify(execFile);
let svc: TestService;
let work: string;

beforeAll(async () => {
  svc = await startTestService();
  work = mkdtempSync(join(tmpdir(), 'memotrace-packages-'));
});
afterAll(async () => {
  await svc?.stop();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

/** npm, without the settings of an npm that may have started jest (its lifecycle would point nested installs elsewhere). */
async function npm(args: string[], cwd: string): Promise<string> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_(lifecycle|package)_|^npm_config_local_prefix$/.test(k)));
  return (await run('npm', args, { cwd, env, maxBuffer: 64 * 1024 * 1024 })).stdout;
}

const installed = (name: string) =>
  (JSON.parse(readFileSync(join(repo, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
const PEERS = ['ai', '@langchain/langgraph', '@langchain/langgraph-checkpoint', '@langchain/core', 'zod'];

const usage = `{
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}`;

/** Every package in use: the client's reads and writes, the store in a LangGraph graph, a tool call and the middleware. */
const esmScript = `
import { MemoTraceClient } from '@memotrace/client';
import { MemoTraceStore } from '@memotrace/langgraph';
import { memoryContextMiddleware, memoryTools } from '@memotrace/ai-sdk';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

const client = new MemoTraceClient({ url: process.env.MEMOTRACE_URL });
const seeded = await client.memory('pkg-client').commands([{ op: 'UPSERT_ENTITY', entityId: 'ada', name: 'Ada Lovelace' }]);
const ada = await client.memory('pkg-client').entity('ada');

const store = new MemoTraceStore(client, { memoryId: 'pkg-langgraph' });
const State = Annotation.Root({ note: Annotation(), seen: Annotation() });
const graph = new StateGraph(State)
  .addNode('write', async (state, config) => { await config.store.put(['notes'], 'n1', { text: state.note }); return {}; })
  .addNode('read', async (state, config) => ({ seen: (await config.store.get(['notes'], 'n1')).value.text }))
  .addEdge(START, 'write').addEdge('write', 'read').addEdge('read', END)
  .compile({ store });
const first = await graph.invoke({ note: 'packed' });
const second = await graph.invoke({ note: 'packed and installed' });
const history = await store.history(['notes'], 'n1');

const { position } = await client.memory('pkg-ai').commands([
  { op: 'UPSERT_ENTITY', entityId: 'grace', name: 'Grace Hopper' },
  { op: 'UPSERT_EDGE', src: 'grace', rel: 'invented', dst: { literal: 'the first compiler' } },
]);
await client.memory('pkg-ai').facts({ minPosition: position });
let step = 0;
const model = new MockLanguageModelV3({
  doGenerate: async () => step++ === 0
    ? { content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'remember',
          input: JSON.stringify({ subject: 'Grace Hopper', relation: 'worked at', object: 'Harvard' }) }],
        finishReason: { unified: 'tool-calls', raw: undefined }, usage: ${usage}, warnings: [] }
    : { content: [{ type: 'text', text: 'noted' }], finishReason: { unified: 'stop', raw: undefined }, usage: ${usage}, warnings: [] },
});
const result = await generateText({
  model: wrapLanguageModel({ model, middleware: memoryContextMiddleware(client, { memoryId: 'pkg-ai' }) }),
  tools: memoryTools(client, { memoryId: 'pkg-ai' }),
  prompt: 'What did Grace Hopper invent?',
  stopWhen: stepCountIs(3),
});
const facts = await client.memory('pkg-ai').facts({ rel: 'worked_at' });

console.log(JSON.stringify({
  status: seeded.results[0].status,
  name: ada.name,
  seen: [first.seen, second.seen],
  versions: history.map((v) => v.value.text),
  text: result.text,
  context: model.doGenerateCalls[0].prompt.filter((m) => m.role === 'system').map((m) => m.content).join('\\n'),
  workedAt: facts.facts.length,
}));
`;

const cjsScript = `
const { MemoTraceClient, MemoTraceError } = require('@memotrace/client');
const { MemoTraceStore, itemFactId } = require('@memotrace/langgraph');
const { memoryTools, relationId } = require('@memotrace/ai-sdk');
(async () => {
  const store = new MemoTraceStore(new MemoTraceClient({ url: process.env.MEMOTRACE_URL }), { memoryId: 'pkg-cjs' });
  await store.put(['a'], 'k', { n: 1 });
  const item = await store.get(['a'], 'k');
  console.log(JSON.stringify({ n: item.value.n, error: typeof MemoTraceError, factId: itemFactId(['a'], 'k').startsWith('lg-fact-'),
    tools: Object.keys(memoryTools(new MemoTraceClient({ url: 'http://127.0.0.1:1' }), { memoryId: 'x' })).sort(), rel: relationId('works at') }));
})().catch((e) => { console.error(e); process.exit(1); });
`;

/** Compiles against the installed declarations; the expected errors show the types are the contract's, not any. */
const typedConsumer = `
import { type FactsResponse, MemoTraceClient, type WireCommandInput } from '@memotrace/client';
import { MemoTraceStore } from '@memotrace/langgraph';
import { memoryContextMiddleware, memoryTools } from '@memotrace/ai-sdk';
import type { BaseStore } from '@langchain/langgraph-checkpoint';
import type { LanguageModelMiddleware } from 'ai';

const client = new MemoTraceClient({ url: 'http://127.0.0.1:1' });
export const command: WireCommandInput = { op: 'UPSERT_EDGE', src: 'ada', rel: 'knows', dst: { literal: 'maths' } };
export const store: BaseStore = new MemoTraceStore(client, { memoryId: 'm', index: { fields: ['text'] } });
export const middleware: LanguageModelMiddleware = memoryContextMiddleware(client, { memoryId: 'm', tokenBudget: 500 });
export const remember = memoryTools(client, { memoryId: 'm' }).remember;
export async function validFrom(): Promise<string | undefined> {
  const facts: FactsResponse = await client.memory('m').facts({ validAt: '*' });
  return facts.facts[0]?.validFrom;
}
// @ts-expect-error: a command's op is one the contract knows
export const wrong: WireCommandInput = { op: 'DROP_TABLE' };
// @ts-expect-error: validTo is an instant or null
export const badVersion: FactsResponse['facts'][number]['validTo'] = 42;
// @ts-expect-error: the store needs a memoryId
export const noMemory = new MemoTraceStore(client, {});
`;

describe('the npm packages', () => {
  it('build, pack, install into an empty project and work there: ES module, CommonJS and TypeScript', async () => {
    const built = buildPackages(
      PACKAGES.map((p) => p.name),
      { stage: join(work, 'stage') },
    );
    const tarballs = join(work, 'tarballs');
    mkdirSync(tarballs);
    const packed: { name: string; filename: string; files: { path: string }[] }[] = [];
    for (const dir of built.values())
      packed.push(...JSON.parse(await npm(['pack', '--json', '--ignore-scripts', '--pack-destination', tarballs], dir)));
    expect(packed.map((p) => p.name)).toEqual(['@memotrace/client', '@memotrace/langgraph', '@memotrace/ai-sdk']);
    for (const { files } of packed) {
      const paths = files.map((f) => f.path);
      expect(paths).toEqual(expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts']));
      expect(paths.filter((p) => !/^(package\.json|README\.md|dist\/[\w-]+\.(js|d\.ts))$/.test(p))).toEqual([]);
    }
    expect(packed[0]!.files.map((f) => f.path)).toContain('dist/contracts.d.ts');

    const consumer = join(work, 'consumer');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const peers = PEERS.map((name) => `${name}@${installed(name)}`);
    await npm(['install', '--no-audit', '--no-fund', '--prefer-offline', ...packed.map((p) => join(tarballs, p.filename)), ...peers], consumer);

    const env = { ...process.env, MEMOTRACE_URL: svc.url };
    writeFileSync(join(consumer, 'esm.mjs'), esmScript);
    const esm = JSON.parse((await run(process.execPath, ['esm.mjs'], { cwd: consumer, env })).stdout);
    expect(esm).toEqual({
      status: 'applied',
      name: 'Ada Lovelace',
      seen: ['packed', 'packed and installed'],
      versions: ['packed', 'packed and installed'],
      text: 'noted',
      context: expect.stringContaining('Grace Hopper invented the first compiler'),
      workedAt: 1,
    });

    writeFileSync(join(consumer, 'cjs.cjs'), cjsScript);
    const cjs = JSON.parse((await run(process.execPath, ['cjs.cjs'], { cwd: consumer, env })).stdout);
    expect(cjs).toEqual({
      n: 1,
      error: 'function',
      factId: true,
      tools: ['checkClaims', 'correctFact', 'factHistory', 'remember', 'searchMemory'],
      rel: 'works_at',
    });

    writeFileSync(join(consumer, 'consumer.ts'), typedConsumer);
    const compilerOptions = { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: true };
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.ts'] }));
    await run(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', consumer], { cwd: consumer });
  }, 170_000);
});
