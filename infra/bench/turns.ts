import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Conversation, DEV, HELD_OUT, loadLocomo, normaliseEvidence } from './locomo-data';
import { askQuestions, caughtUp, type LocomoService, startLocomoService } from './locomo-harness';
import { type QuestionScore, report } from './locomo-metrics';
import { type ChatCosts, RECORDED_MODEL, startRecordedChatServer } from './recorded-chat-server';
import { summary } from './stats';

/**
 * `npm run bench:turns`: LoCoMo through `POST /v1/memories/{memoryId}/turns` (SPEC §5.1).
 *
 * Each conversation goes in twice, through the same route of the same service: into memory
 * `<sample>` with `extraction: "sync"` (the configured extractor, the rules one unless
 * EXTRACTION_URL is set) and into `<sample>_off` with `extraction: "off"` (mentions only).
 * Each session is one request (chunks of at most 1,000 turns), every turn's `at` and the
 * request's `recordedAt` the session time, `turnId` the turn's dia_id, so gold evidence names
 * mention ids. Before each timed ingest the projectors catch up, so the figure is the route's.
 *
 * - coverage: share of LoCoMo's gold observations with an evidence turn cited by an appended
 *   derived fact or event (UPSERT_EDGE or UPSERT_EVENT whose `derived` status is applied or
 *   unchanged; its `turns` are its `derivedFrom`, which a fact also carries as evidence);
 *   precision: share of those facts and events citing a gold evidence turn. /derived is read
 *   back for a sample of turns (BENCH_READBACK=all: every turn) and must list the same appended ones (applied or unchanged).
 * - evidence recall of search with the LoCoMo protocol of bench:locomo (the same question loop),
 *   both memories asked the same questions. A search item retrieves turns by this rule: a
 *   mention its own id; a fact the mentions its `evidence` names; an event the `derivedFrom`
 *   turns of the applied UPSERT_EVENT commands that wrote it. R@k is recall over the turns of
 *   the first k items that retrieve any turn, so a derived item takes a slot as a mention does.
 *   T@10 (a diagnostic, no target) is recall over the first 10 distinct turns, where an item
 *   repeating a turn already retrieved takes no slot.
 * - throughput: turns/s through the route per split, end to end over HTTP, sync and off; and
 *   derived commands appended per turn.
 *
 * BENCH_SPLIT=dev|held-out|both (default both); EMBEDDINGS=off for BM25 only. The extractor is
 * tuned on dev; held-out is only measured. LoCoMo is read in place, never copied.
 *
 * BENCH_LLM=recorded: the cost of the LLM extractor instead. The service runs it against a local
 * server implementing the chat-completions contract with a recorded answer (./recorded-chat-server.ts:
 * it is not a model, and its answer derives nothing), and the bench reports the calls and prompt
 * tokens per turn the extractor sends for LoCoMo; no recall or quality (nothing is derived).
 */
const LOCOMO_FILE = process.env['LOCOMO_FILE'] ?? resolve(__dirname, '../../../shared/data/locomo/locomo10.json');
const MAX_TURNS = 1000;
const READBACK_EVERY = 25;
const OFF = '_off';

interface TurnsResponse {
  results: { status: string }[];
  derived: { commandId: string; op: string; status: string; ids: Record<string, string | string[]>; turns: string[] }[];
}

interface DerivedResponse {
  commands: { op: string; commandId: string; actor?: string; derivedFrom?: string[] }[];
}

/** What the sync ingest of a split derived: the appended facts and events (their turns) and counts. */
interface Ingest {
  turns: number;
  syncMs: number;
  offMs: number;
  items: Map<string, string[][]>;
  cites: Map<string, Map<string, string[]>>;
  byOp: Map<string, number>;
  byStatus: Map<string, number>;
  appended: number;
  perTurn: Map<string, Map<string, Set<string>>>;
  /** Sync turns/s of each conversation, in ingest order. */
  perConversation: string[];
}

interface SplitResult {
  label: string;
  turns: number;
  observations: number;
  covered: number;
  items: number;
  goldItems: number;
  ingest: Ingest;
  off: QuestionScore[];
  rules: QuestionScore[];
  readback: { turns: number; mismatches: number };
}

/** Gold observations per sample: the evidence turn ids of each (those naming a known turn). */
function loadObservations(): Map<string, string[][]> {
  const raw = JSON.parse(readFileSync(LOCOMO_FILE, 'utf8')) as {
    sample_id: string;
    observation?: Record<string, Record<string, [string, string | string[]][]>>;
  }[];
  const out = new Map<string, string[][]>();
  for (const sample of raw) {
    const observations = Object.values(sample.observation ?? {})
      .flatMap((bySpeaker) => Object.values(bySpeaker).flat())
      .map(([, evidence]) => normaliseEvidence(Array.isArray(evidence) ? evidence : [evidence]));
    out.set(sample.sample_id, observations);
  }
  return out;
}

const APPENDED = new Set(['applied', 'unchanged']);
const ITEM_OPS = new Set(['UPSERT_EDGE', 'UPSERT_EVENT']);

async function ingest(service: LocomoService, conversations: Conversation[]): Promise<Ingest> {
  const result: Ingest = {
    turns: 0,
    syncMs: 0,
    offMs: 0,
    items: new Map(),
    cites: new Map(),
    byOp: new Map(),
    byStatus: new Map(),
    appended: 0,
    perTurn: new Map(),
    perConversation: [],
  };
  const requests = (c: Conversation, mode: 'sync' | 'off') =>
    c.sessions.flatMap((session) => {
      const turns = session.turns.map((t) => ({ turnId: t.dia_id, speaker: t.speaker, text: t.text, at: session.at }));
      const chunks = [];
      for (let i = 0; i < turns.length; i += MAX_TURNS) {
        chunks.push({
          sessionId: `${c.sampleId}:session_${session.number}`,
          turns: turns.slice(i, i + MAX_TURNS),
          recordedAt: session.at,
          extraction: mode,
        });
      }
      return chunks;
    });
  await caughtUp(service.db);
  let started = performance.now();
  for (const c of conversations) {
    const conversationStarted = performance.now();
    const turnsBefore = result.turns;
    const items: string[][] = [];
    const cites = new Map<string, string[]>();
    const perTurn = new Map<string, Set<string>>();
    for (const body of requests(c, 'sync')) {
      const response = await service.post<TurnsResponse>(`/v1/memories/${c.sampleId}/turns`, body);
      result.turns += body.turns.length;
      for (const d of response.derived) {
        result.byStatus.set(d.status, (result.byStatus.get(d.status) ?? 0) + 1);
        if (!APPENDED.has(d.status)) continue;
        result.appended++;
        result.byOp.set(d.op, (result.byOp.get(d.op) ?? 0) + 1);
        if (!ITEM_OPS.has(d.op)) continue;
        items.push(d.turns);
        // An unchanged command is logged too, so /derived lists it beside the applied ones.
        for (const t of d.turns) perTurn.set(t, (perTurn.get(t) ?? new Set()).add(d.commandId));
        if (d.status !== 'applied') continue;
        const eventId = d.ids['eventId'];
        if (d.op === 'UPSERT_EVENT' && typeof eventId === 'string')
          cites.set(`event:${eventId}`, [...new Set([...(cites.get(`event:${eventId}`) ?? []), ...d.turns])]);
      }
    }
    const seconds = (performance.now() - conversationStarted) / 1000;
    result.perConversation.push(`${c.sampleId} ${((result.turns - turnsBefore) / seconds).toFixed(0)}`);
    result.items.set(c.sampleId, items);
    result.cites.set(c.sampleId, cites);
    result.perTurn.set(c.sampleId, perTurn);
  }
  result.syncMs = performance.now() - started;
  await caughtUp(service.db);
  started = performance.now();
  for (const c of conversations) for (const body of requests(c, 'off')) await service.post(`/v1/memories/${c.sampleId}${OFF}/turns`, body);
  result.offMs = performance.now() - started;
  return result;
}

/** /derived for every READBACK_EVERY-th turn (or all): the applied facts and events it lists must be the ones the responses named. */
async function readBack(
  service: LocomoService,
  conversations: Conversation[],
  ingested: Ingest,
  actors: Set<string>,
): Promise<SplitResult['readback']> {
  const every = process.env['BENCH_READBACK'] === 'all' ? 1 : READBACK_EVERY;
  let turns = 0;
  let mismatches = 0;
  for (const c of conversations) {
    const ids = c.sessions.flatMap((s) => s.turns.map((t) => t.dia_id));
    for (let i = 0; i < ids.length; i += every) {
      const turnId = ids[i]!;
      const response = await fetch(`${service.url}/v1/memories/${c.sampleId}/mentions/${encodeURIComponent(turnId)}/derived`);
      if (response.status !== 200) throw new Error(`/derived of ${c.sampleId} ${turnId}: ${response.status} ${await response.text()}`);
      const { commands } = (await response.json()) as DerivedResponse;
      for (const command of commands) if (command.actor !== undefined) actors.add(command.actor);
      const listed = new Set(commands.filter((command) => ITEM_OPS.has(command.op)).map((command) => command.commandId));
      const answered = ingested.perTurn.get(c.sampleId)?.get(turnId) ?? new Set<string>();
      turns++;
      if (listed.size !== answered.size || [...listed].some((id) => !answered.has(id))) mismatches++;
    }
  }
  return { turns, mismatches };
}

/** Calls and prompt tokens the LLM extractor sent for a split's turns (the calls from `from` on). */
function printLlmCost(label: string, turns: number, costs: ChatCosts, from: number): void {
  const prompts = costs.promptTokens.slice(from);
  const tokens = prompts.reduce((sum, t) => sum + t, 0);
  const sorted = [...prompts].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  console.log(
    `${label}: LLM extractor (recorded-answer server, not a model): ${prompts.length} calls for ${turns} turns ` +
      `(${(prompts.length / turns).toFixed(3)} a turn), prompt tokens ${(tokens / turns).toFixed(0)} a turn ` +
      `(a call: median ${at(0.5)}, p95 ${at(0.95)}, max ${sorted.at(-1) ?? 0}); completion tokens not measured (the model's)`,
  );
}

function pct(n: number, d: number): string {
  return d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)}%`;
}

function counts(byKey: ReadonlyMap<string, number>): string {
  return [...byKey].map(([key, n]) => `${key} ${n}`).join(', ');
}

/** Mean R@10 (or, with `distinct`, recall over the first 10 distinct turns) of a category or of all. */
function mean(scores: readonly QuestionScore[], category?: number, distinct = false): string {
  const rows = category === undefined ? scores : scores.filter((s) => s.category === category);
  return ((100 * rows.reduce((sum, s) => sum + (distinct ? (s.turns10 ?? s.r10) : s.r10), 0)) / Math.max(1, rows.length)).toFixed(1);
}

async function main(): Promise<void> {
  const which = process.env['BENCH_SPLIT'] ?? 'both';
  const splits = (
    [
      ['dev', DEV],
      ['held-out', HELD_OUT],
    ] as const
  ).filter(([label]) => which === 'both' || which === label);
  if (splits.length === 0) throw new Error(`BENCH_SPLIT must be dev, held-out or both, not ${JSON.stringify(which)}`);
  const conversations = loadLocomo();
  const observations = loadObservations();
  const chat = process.env['BENCH_LLM'] === 'recorded' ? await startRecordedChatServer() : undefined;
  if (chat !== undefined) Object.assign(process.env, { EXTRACTION_URL: chat.url, EXTRACTION_MODEL: RECORDED_MODEL });
  const service = await startLocomoService();
  const actors = new Set<string>();
  const latencies: number[] = [];
  const results: SplitResult[] = [];
  try {
    const ingested = new Map<string, Ingest>();
    for (const [label, split] of splits) {
      const chosen = conversations.filter((c) => split.includes(c.sampleId));
      const calls = chat?.costs.calls ?? 0;
      const i = await ingest(service, chosen);
      if (chat !== undefined) printLlmCost(label, i.turns, chat.costs, calls);
      ingested.set(label, i);
      console.log(
        `${label}: ${i.turns} turns through /turns: sync ${((1000 * i.turns) / i.syncMs).toFixed(0)} turns/s (${(i.syncMs / 1000).toFixed(1)} s), ` +
          `off ${((1000 * i.turns) / i.offMs).toFixed(0)} turns/s (${(i.offMs / 1000).toFixed(1)} s); ` +
          `sync turns/s by conversation: ${i.perConversation.join(', ')}`,
      );
    }
    if (chat !== undefined) return;
    const started = performance.now();
    await caughtUp(service.db);
    console.log(`read models and search index caught up ${((performance.now() - started) / 1000).toFixed(1)} s after the last ingest`);
    for (const [label, split] of splits) {
      const chosen = conversations.filter((c) => split.includes(c.sampleId));
      const i = ingested.get(label)!;
      const r: SplitResult = {
        label,
        turns: i.turns,
        observations: 0,
        covered: 0,
        items: 0,
        goldItems: 0,
        ingest: i,
        off: [],
        rules: [],
        readback: { turns: 0, mismatches: 0 },
      };
      for (const c of chosen) {
        const known = new Set(c.sessions.flatMap((s) => s.turns.map((t) => t.dia_id)));
        const obs = (observations.get(c.sampleId) ?? []).map((ev) => ev.filter((id) => known.has(id))).filter((ev) => ev.length > 0);
        const gold = new Set(obs.flat());
        const items = i.items.get(c.sampleId) ?? [];
        const cited = new Set(items.flat());
        r.observations += obs.length;
        r.covered += obs.filter((ev) => ev.some((id) => cited.has(id))).length;
        r.items += items.length;
        r.goldItems += items.filter((turns) => turns.some((id) => gold.has(id))).length;
        r.off.push(...(await askQuestions(service.post, c, `${c.sampleId}${OFF}`, latencies)));
        r.rules.push(...(await askQuestions(service.post, c, c.sampleId, latencies, i.cites.get(c.sampleId))));
      }
      r.readback = await readBack(service, chosen, i, actors);
      results.push(r);
    }
  } finally {
    await service.close();
    await chat?.close();
  }

  console.log(`\nextractor: ${[...actors].join(', ') || 'none seen'}; embeddings: ${process.env['EMBEDDINGS'] ?? 'default (USE lite)'}`);
  for (const r of results) {
    const i = r.ingest;
    console.log(
      `${r.label}: derived ${counts(i.byStatus)}; appended by op ${counts(i.byOp)}; ` +
        `/derived read back for ${r.readback.turns} turns, ${r.readback.mismatches} differing`,
    );
    console.log(
      report(`${r.label}`, r.off)
        .map((line) => `off   ${line}`)
        .join('\n'),
    );
    console.log(
      report(`${r.label}`, r.rules)
        .map((line) => `sync  ${line}`)
        .join('\n'),
    );
  }
  console.log(`search latency (HTTP, k=25): ${summary(latencies)}\n`);
  const header = [
    'split',
    'turns',
    'obs',
    'coverage',
    'precision',
    'facts+events',
    'derived/turn',
    'sync t/s',
    'off t/s',
    'R@10 off',
    'R@10 sync',
    'MH R@10 off',
    'MH R@10 sync',
    'T@10 sync',
    'MH T@10 sync',
  ];
  const rows = results.map((r) => [
    r.label,
    String(r.turns),
    String(r.observations),
    pct(r.covered, r.observations),
    pct(r.goldItems, r.items),
    String(r.items),
    (r.ingest.appended / r.turns).toFixed(2),
    ((1000 * r.turns) / r.ingest.syncMs).toFixed(0),
    ((1000 * r.turns) / r.ingest.offMs).toFixed(0),
    mean(r.off),
    mean(r.rules),
    mean(r.off, 1),
    mean(r.rules, 1),
    mean(r.rules, undefined, true),
    mean(r.rules, 1, true),
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c]!.length)));
  for (const row of [header, ...rows]) console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '));
  const held = results.find((r) => r.label === 'held-out');
  if (held !== undefined) {
    const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
    console.log(
      `held-out targets: coverage >= 70% ${met(held.covered / held.observations >= 0.7)}, ` +
        `precision >= 65% ${met(held.goldItems / held.items >= 0.65)}, ` +
        `R@10 not below mentions-only ${met(Number(mean(held.rules)) >= Number(mean(held.off)))}, ` +
        `multi-hop R@10 up ${met(Number(mean(held.rules, 1)) > Number(mean(held.off, 1)))}`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
