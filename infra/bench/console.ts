import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { createPool } from '@memotrace/postgres';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { findChromium, launchChromium } from '../../services/console/src/testing/browser';
import { startServer } from './scale/server';
import { type JsonCommand, emptySample, memoryBatches } from './scale/workload';
import { percentile } from './stats';

/**
 * `npm run bench:console`: how fast each console page answers on ONE memory of BENCH_CONSOLE_FACTS
 * facts (default 100,000). A fresh service (`npm start` wiring, embedded PostgreSQL unless DATABASE_URL
 * is set) takes the scale benchmark's generated memory over HTTP, with events and evidence mentions
 * woven in; then Debian's Chromium (headless, playwright-core) loads each page from its deep link, timed
 * from navigation to the element the page shows once its data arrived. The same API calls are timed
 * alone from Node, so the report separates the server's time from the browser's. Every page also asks
 * `GET /v1/access` (the key bar says what the key may do), in parallel with its own reads.
 */
const env = process.env;
const FACTS = Number(env['BENCH_CONSOLE_FACTS'] ?? 100_000);
/** Warm loads per page: the p95 of 20 would be their second slowest, decided by one pause of the machine. */
const LOADS = Number(env['BENCH_CONSOLE_LOADS'] ?? 100);
const SEED = Number(env['BENCH_CONSOLE_SEED'] ?? 7);
const MEMORY = 'console-bench';
const ENTITIES = Math.max(10, Math.round(FACTS / 50));
const DAY = 86_400_000;
/** The generator's record clock advances ~1 h per command: compressed so the history ends before today. */
const BASE = Date.UTC(2024, 0, 1);
const COMPRESS = 16;
const EVENT_EVERY = 100;
const MENTION_EVERY = 20;
const TARGETS = 5;

const squeeze = (iso: string) => new Date(BASE + Math.round((Date.parse(iso) - BASE) / COMPRESS)).toISOString();

interface Loaded {
  commands: number;
  facts: number;
  events: number;
  mentions: number;
  position: number;
  firstRecordedMs: number;
  lastRecordedMs: number;
  factIds: string[];
  seconds: number;
}

/** Sends the generated memory in batches; stops after the batch in which the FACTS-th new fact appears. */
async function load(url: string): Promise<Loaded> {
  const shape = { versions: 100 * FACTS, memories: 1, entitiesPerMemory: ENTITIES, batchSize: 900, seed: SEED };
  const sample = emptySample(MEMORY);
  const t0 = performance.now();
  const out: Loaded = { commands: 0, facts: 0, events: 0, mentions: 0, position: 0, firstRecordedMs: 0, lastRecordedMs: 0, factIds: [], seconds: 0 };
  let n = 0;
  let lastLog = Date.now();
  for (const batch of memoryBatches(shape, 0, sample)) {
    const commands: JsonCommand[] = [];
    for (const raw of batch) {
      const command: JsonCommand = { ...raw, recordedAt: squeeze(raw['recordedAt'] as string) };
      for (const field of ['validFrom', 'validTo'] as const) if (typeof command[field] === 'string') command[field] = squeeze(command[field]);
      const isNewFact = command['op'] === 'UPSERT_EDGE' && command['validFrom'] !== undefined;
      if (isNewFact && out.facts % MENTION_EVERY === 0) {
        // A turn that evidences the fact, as an extractor would cite it.
        const mentionId = `m${out.mentions++}`;
        commands.push({
          op: 'RECORD_MENTION',
          mentionId,
          docId: `conversation-${out.mentions % 200}`,
          text: `${command['src'] as string} said something about ${command['rel'] as string}`,
          speaker: command['src'],
          recordedAt: command['recordedAt'],
        });
        command['evidence'] = [mentionId];
      }
      commands.push(command);
      if (!isNewFact) continue;
      out.facts += 1;
      out.factIds.push(command['factId'] as string);
      if (out.facts % EVENT_EVERY === 0) {
        const from = command['validFrom'] as string;
        commands.push({
          op: 'UPSERT_EVENT',
          eventId: `ev${out.events++}`,
          summary: `${command['src'] as string} ${command['rel'] as string} (event ${out.events})`,
          participants: [{ entityId: command['src'], role: 'subject' }],
          includesFacts: [command['factId']],
          // Half of them still going on, so the present cut shows events too.
          timeSpan: { from, ...(out.events % 2 === 0 ? { to: new Date(Date.parse(from) + 30 * DAY).toISOString() } : {}) },
          recordedAt: command['recordedAt'],
        });
      }
    }
    if (out.firstRecordedMs === 0) out.firstRecordedMs = Date.parse(commands[0]!['recordedAt'] as string);
    out.lastRecordedMs = Date.parse(commands[commands.length - 1]!['recordedAt'] as string);
    const response = await fetch(`${url}/v1/memories/${MEMORY}/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ commands: commands.map((c) => ({ ...c, commandId: `c${n++}` })) }),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`POST commands: HTTP ${response.status} ${text.slice(0, 500)}`);
    const body = JSON.parse(text) as { position: number; results: Array<{ status: string }> };
    const notApplied = body.results.find((r) => r.status !== 'applied');
    if (notApplied) throw new Error(`a generated command was not applied: ${JSON.stringify(notApplied)}`);
    out.commands += commands.length;
    out.position = body.position;
    if (Date.now() - lastLog > 10_000) {
      lastLog = Date.now();
      console.log(`   ${out.facts.toLocaleString('en')} facts, ${out.commands.toLocaleString('en')} commands`);
    }
    if (out.facts >= FACTS) break;
  }
  if (out.lastRecordedMs >= Date.now()) throw new Error('the compressed history ends in the future: raise COMPRESS');
  out.seconds = (performance.now() - t0) / 1000;
  return out;
}

// ------------------------------------------------------------------ the pages' API calls, as the console makes them

interface Call {
  path: string;
  ms: number;
  rows: number;
  bytes: number;
}

async function get(
  url: string,
  path: string,
  query: Record<string, string | number | readonly string[] | undefined> = {},
  body?: unknown,
): Promise<Call & { json: never }> {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (typeof value === 'object') for (const one of value) params.append(name, one);
    else if (value !== undefined) params.set(name, String(value));
  }
  const full = `${path}${params.size > 0 ? `?${params}` : ''}`;
  const t0 = performance.now();
  const response = await fetch(url + full, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await response.text();
  const json = JSON.parse(text) as Record<string, unknown>;
  const ms = performance.now() - t0;
  if (!response.ok) throw new Error(`${full}: HTTP ${response.status} ${text.slice(0, 300)}`);
  const list = ['facts', 'events', 'episodes', 'changes', 'memories', 'items', 'versions', 'entities'].map((k) => json[k]).find(Array.isArray);
  return { path: full, ms, rows: list?.length ?? 1, bytes: text.length, json: json as never };
}

interface Cut {
  validAt?: string;
  recordedAt?: string;
}

interface PageCase {
  name: string;
  /** The console's deep link of target i. */
  href(i: number): string;
  /** What shows once the data arrived (and nothing in the page's main part is still loading). */
  ready: string;
  /** The API calls the page makes for target i, in its order (parallel where it is). */
  api(url: string, i: number): Promise<Call[]>;
  calls: string;
}

const m = (rest = '') => `/v1/memories/${MEMORY}${rest}`;
const cutQuery = (cut: Cut) => {
  const params = new URLSearchParams();
  if (cut.validAt) params.set('validAt', cut.validAt);
  if (cut.recordedAt) params.set('recordedAt', cut.recordedAt);
  return params.size > 0 ? `?${params}` : '';
};

/** The memory page: four listings at once (entities with their facts and the entities those name; events; episodes; changes with names). */
async function memoryCalls(url: string, cut: Cut): Promise<Call[]> {
  const q = { validAt: cut.validAt, recordedAt: cut.recordedAt };
  const end = cut.recordedAt ?? new Date().toISOString();
  return Promise.all([
    get(url, m('/entities'), { ...q, limit: 25, include: 'facts', factsPerEntity: 5 }),
    get(url, m('/events'), { ...q, limit: 50 }),
    get(url, m('/episodes'), { ...q, limit: 50 }),
    get(url, m('/changes'), { from: new Date(Date.parse(end) - 7 * DAY).toISOString(), to: end, limit: 100, include: 'entities' }),
    get(url, '/v1/access'),
  ]);
}

/** The entity page: what the cut holds about the entity, its facts with the entities they name and the mentions they cite, in one round. */
async function entityCalls(url: string, entityId: string, cut: Cut): Promise<Call[]> {
  const q = { validAt: cut.validAt, recordedAt: cut.recordedAt };
  const include = ['entities', 'mentions'];
  return Promise.all([
    get(url, m(`/entities/${entityId}`), { recordedAt: cut.recordedAt }),
    get(url, m('/facts'), { ...q, src: entityId, include }),
    get(url, m('/facts'), { ...q, dst: entityId, include }),
    get(url, m('/events'), { ...q, entity: entityId }),
    get(url, '/v1/access'),
  ]);
}

// ------------------------------------------------------------------ timing

interface Figures {
  name: string;
  calls: string;
  browser: number[];
  /** Within each browser load: from the first /v1 request's start to the last one's end. */
  apiInBrowser: number[];
  /** Within each browser load, on the page's clock: when the first /v1 request started and when the last one's answer was in. */
  asked: number[];
  answered: number[];
  browserCold: number;
  apiInBrowserCold: number;
  fetch: number[];
  fetchCold: number;
  /** The calls of the first warm fetch round: rows and bytes per call. */
  shape: Call[];
}

/**
 * One navigation in the context's tab, as a deep link opened by hand. `total` is the page's own clock: from the
 * navigation's start to the first animation frame in which `ready` is in the document.
 */
async function timeBrowser(
  tab: Page,
  url: string,
  page: PageCase,
  i: number,
): Promise<{ total: number; api: number; asked: number; answered: number }> {
  await tab.goto(url + page.href(i), { waitUntil: 'commit' });
  const seen = await tab.waitForFunction(
    (selector: string) => {
      const { document } = globalThis as unknown as InPage;
      const loading = document.querySelector('main [role="status"], main [aria-busy="true"]');
      return document.querySelector(selector) && !loading ? performance.now() : 0;
    },
    page.ready,
    {
      polling: 'raf',
      timeout: 300_000,
    },
  );
  const total = (await seen.jsonValue()) as number;
  const failed = await tab.locator('[role=alert]').count();
  if (failed > 0) throw new Error(`${page.name}: the page shows an error: ${await tab.locator('[role=alert]').first().textContent()}`);
  const { asked, answered } = await tab.evaluate(() => {
    const calls = (performance.getEntriesByType('resource') as unknown as ResourceTiming[]).filter((e) =>
      new URL(e.name).pathname.startsWith('/v1/'),
    );
    if (calls.length === 0) return { asked: 0, answered: 0 };
    return { asked: Math.min(...calls.map((c) => c.startTime)), answered: Math.max(...calls.map((c) => c.responseEnd)) };
  });
  return { total, api: answered - asked, asked, answered };
}

/** What the page's functions use of the browser's globals (this file compiles without the DOM library). */
interface InPage {
  document: { querySelector(selector: string): unknown };
}
interface ResourceTiming {
  name: string;
  startTime: number;
  responseEnd: number;
}

async function newTab(browser: Browser): Promise<{ context: BrowserContext; tab: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  return { context, tab: await context.newPage() };
}

async function measure(browser: Browser, url: string, page: PageCase): Promise<Figures> {
  // Cold: a fresh browser profile (nothing cached), the first time the service answers this page.
  const first = await newTab(browser);
  const cold = await timeBrowser(first.tab, url, page, 0);
  await first.context.close();
  const { context, tab } = await newTab(browser);
  const browserTimes: number[] = [];
  const apiTimes: number[] = [];
  const asked: number[] = [];
  const answered: number[] = [];
  for (let i = 0; i < LOADS; i++) {
    const t = await timeBrowser(tab, url, page, i % TARGETS);
    browserTimes.push(t.total);
    apiTimes.push(t.api);
    asked.push(t.asked);
    answered.push(t.answered);
  }
  await context.close();
  const fetchTimes: number[] = [];
  let shape: Call[] = [];
  const t0 = performance.now();
  await page.api(url, TARGETS); // a target the browser has not loaded: the API's own cold figure
  const fetchCold = performance.now() - t0;
  for (let i = 0; i < LOADS; i++) {
    const t1 = performance.now();
    const calls = await page.api(url, i % TARGETS);
    fetchTimes.push(performance.now() - t1);
    if (i === 0) shape = calls;
  }
  return {
    name: page.name,
    calls: page.calls,
    browser: browserTimes,
    apiInBrowser: apiTimes,
    asked,
    answered,
    browserCold: cold.total,
    apiInBrowserCold: cold.api,
    fetch: fetchTimes,
    fetchCold,
    shape,
  };
}

/**
 * What any page costs this browser on this machine before the console does anything: a static page of one
 * table, no script, no API call, from a server of its own, timed as the console's pages are.
 */
async function browserFloor(browser: Browser): Promise<Figures> {
  const table = '<table id="floor"><tr><td>static</td></tr></table>';
  const html = `<!doctype html><html lang="en"><head><title>floor</title></head><body><main>${table}</main></body></html>`;
  const server = createServer((_, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return await measure(browser, url, {
      name: 'Browser floor: a static page (one table, no script, no API call)',
      href: (i) => `/floor/${i}`,
      ready: '#floor td',
      api: async () => [],
      calls: 'none',
    });
  } finally {
    server.close();
  }
}

const ms = (v: number) => (v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(0)} ms`);

async function main(): Promise<void> {
  const chromium = findChromium();
  if (chromium === undefined) throw new Error('no Chromium: apt-get install chromium, or set CHROMIUM_PATH');
  console.log(
    `== console pages on one memory of ${FACTS.toLocaleString('en')} facts (${ENTITIES.toLocaleString('en')} entities), ${LOADS} warm loads each`,
  );
  const server = await startServer();
  const pool = createPool(server.databaseUrl);
  let browser: Browser | undefined;
  try {
    const loaded = await load(server.url);
    console.log(
      `   appended ${loaded.commands.toLocaleString('en')} commands (${loaded.facts.toLocaleString('en')} facts, ${loaded.events} events, ` +
        `${loaded.mentions} mentions) in ${loaded.seconds.toFixed(1)} s`,
    );
    // Read-your-writes once: the read models hold the whole memory before anything is timed.
    const t0 = performance.now();
    for (;;) {
      const r = await fetch(`${server.url}${m('/entities')}?limit=1&minPosition=${loaded.position}`);
      await r.text();
      if (r.ok) break;
      if (performance.now() - t0 > 600_000) throw new Error(`the read models did not reach position ${loaded.position}`);
    }
    console.log(`   projected ${((performance.now() - t0) / 1000).toFixed(1)} s after the last append`);
    // What autovacuum does within a minute of a bulk load (as bench:scale does).
    await pool.query('ANALYZE');
    const { rows } = await pool.query<{ versions: string; facts: string; entities: string }>(
      `SELECT count(*) AS versions, count(DISTINCT fact_id) AS facts, (SELECT count(*) FROM rm_entities) AS entities FROM rm_fact_versions`,
    );
    const stored = rows[0]!;
    console.log(`   read models: ${stored.facts} facts, ${stored.versions} fact versions, ${stored.entities} entity rows`);

    const span = loaded.lastRecordedMs - loaded.firstRecordedMs;
    const past = new Date(loaded.firstRecordedMs + Math.round(span * 0.6)).toISOString();
    const asRecorded: Cut = { validAt: past, recordedAt: past };
    const entityOf = (i: number) => `e${(i * 37 + 5) % ENTITIES}`;
    // Facts with several versions (the diagram has something to show), from across the history.
    const multi = await pool.query<{ fact_id: string }>(
      `SELECT fact_id FROM rm_fact_versions GROUP BY fact_id HAVING count(*) >= 3 ORDER BY fact_id LIMIT ${TARGETS + 1}`,
    );
    const factOf = (i: number) => multi.rows[i % multi.rows.length]!.fact_id;
    const query = (i: number) => `Person 0-${(i * 53 + 11) % ENTITIES} works at`;
    const c = '/console/memories/' + MEMORY;
    const pages: PageCase[] = [
      {
        name: 'Memories list',
        href: () => '/console',
        ready: '#memories tbody th a',
        api: (url) => Promise.all([get(url, '/v1/memories'), get(url, '/v1/access')]),
        calls: '`GET /v1/memories`',
      },
      {
        name: 'Memory at a cut, As-World now',
        href: () => c,
        ready: '[data-testid="answered-cut"]',
        api: (url) => memoryCalls(url, {}),
        calls:
          'at once: `entities?limit=25&include=facts&factsPerEntity=5`; `events?limit=50`; `episodes?limit=50`; ' +
          '`changes?limit=100&include=entities` (week before)',
      },
      {
        name: 'Memory at a cut, As-Recorded past',
        href: () => c + cutQuery(asRecorded),
        ready: '[data-testid="answered-cut"]',
        api: (url) => memoryCalls(url, asRecorded),
        calls: 'the same at `validAt=recordedAt=` a past instant',
      },
      {
        name: 'Fact',
        href: (i) => `${c}/facts/${factOf(i)}`,
        ready: '[data-testid="audit"]',
        api: (url, i) => Promise.all([get(url, m(`/facts/${factOf(i)}/history`)), get(url, m(`/facts/${factOf(i)}/audit`)), get(url, '/v1/access')]),
        calls: '`history`, `audit`',
      },
      {
        name: 'Search at a past cut',
        href: (i) => `${c}/search${cutQuery(asRecorded)}&q=${encodeURIComponent(query(i))}`,
        ready: '[data-testid="search-summary"]',
        api: (url, i) => Promise.all([get(url, m('/search'), {}, { query: query(i), k: 10, ...asRecorded }), get(url, '/v1/access')]),
        calls: '`POST search` (k 10)',
      },
      {
        name: 'Entity (graph), As-World now',
        href: (i) => `${c}/entities/${entityOf(i)}`,
        ready: '[data-testid="graph"][data-nodes]',
        api: (url, i) => entityCalls(url, entityOf(i), {}),
        calls: 'at once: `entity`, `facts?src=` and `facts?dst=` (`include=entities&include=mentions`), `events?entity=`',
      },
    ];
    browser = await launchChromium(chromium);
    const all: Figures[] = [await browserFloor(browser)];
    for (const page of pages) {
      const f = await measure(browser, server.url, page);
      all.push(f);
      console.log(
        `   ${f.name}: browser p50 ${ms(percentile(f.browser, 50))}, p95 ${ms(percentile(f.browser, 95))}, cold ${ms(f.browserCold)}; ` +
          `its API calls in the browser p50 ${ms(percentile(f.apiInBrowser, 50))} (cold ${ms(f.apiInBrowserCold)}), ` +
          `first asked at p50 ${ms(percentile(f.asked, 50))}, last answer in at p50 ${ms(percentile(f.answered, 50))}; ` +
          `fetch alone p50 ${ms(percentile(f.fetch, 50))}, p95 ${ms(percentile(f.fetch, 95))}, cold ${ms(f.fetchCold)}`,
      );
      const byPath = new Map<string, { n: number; rows: number; bytes: number; ms: number }>();
      for (const call of f.shape) {
        const key = call.path.replace(/\?.*$/, '').replace(/\/(entities|mentions)\/[^/]+$/, '/$1/{id}');
        const s = byPath.get(key) ?? { n: 0, rows: 0, bytes: 0, ms: 0 };
        byPath.set(key, { n: s.n + 1, rows: s.rows + call.rows, bytes: s.bytes + call.bytes, ms: Math.max(s.ms, call.ms) });
      }
      for (const [path, s] of byPath)
        console.log(`      ${s.n} × ${path}: ${s.rows.toLocaleString('en')} rows, ${(s.bytes / 1024).toFixed(0)} KiB, slowest ${ms(s.ms)}`);
    }
    console.log('');
    console.log(
      '| page | API calls | median | p95 | cold | in the browser: first asked / last answered (median) | ' +
        'API alone (fetch) median / p95 / cold | target: p95 < 200 ms |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const f of all) {
      console.log(
        `| ${f.name} | ${f.calls} | ${ms(percentile(f.browser, 50))} | ${ms(percentile(f.browser, 95))} | ${ms(f.browserCold)} | ` +
          `${ms(percentile(f.asked, 50))} / ${ms(percentile(f.answered, 50))} | ` +
          `${ms(percentile(f.fetch, 50))} / ${ms(percentile(f.fetch, 95))} / ${ms(f.fetchCold)} | ` +
          `${f === all[0] ? '(no page: the floor)' : percentile(f.browser, 95) < 200 ? 'met' : 'not met'} |`,
      );
    }
    console.log(`\n${new Date().toISOString().slice(0, 10)}, ${hostname()}, Node ${process.version}`);
  } finally {
    await browser?.close();
    await pool.end();
    await server.stop();
  }
}

main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
