import { relationPhrase } from '@memotrace/domain';
import { type Conversation, DEV, HELD_OUT, loadLocomo, loadObservations } from './locomo-data';
import { askQuestions, caughtUp, type LocomoService, startLocomoService } from './locomo-harness';
import { type QuestionScore, report } from './locomo-metrics';
import { type ChatCosts, RECORDED_MODEL, startRecordedChatServer } from './recorded-chat-server';
import { loadScorer, type ScoredStatement, type StatementScore, scoreStatements } from './statement-score';
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
 * - statements (./statement-score.ts, with ../shared/eval/statement-match.mjs): every fact and
 *   event an extractor appended, read back from the memory's export as the memory says it (a
 *   fact "<subject name> <rel> <object>", an event its summary) with the turns it was derived
 *   from; recall: share of LoCoMo's gold observations a statement citing their turn says;
 *   precision: share of statements saying an observation of their turn; copies: statements
 *   that repeat their turn's words (0 wanted). /derived is read back for a sample of turns
 *   (BENCH_READBACK=all: every turn) and must list the same appended facts and events.
 * - evidence recall of search with the LoCoMo protocol of bench:locomo (the same question loop),
 *   both memories asked the same questions. A search item retrieves turns by this rule: a
 *   mention its own id; a fact the mentions its `evidence` names; an event the `derivedFrom`
 *   turns of the applied UPSERT_EVENT commands that wrote it. R@k is recall over the turns of
 *   the first k items that retrieve any turn, so a derived item takes a slot as a mention does.
 *   T@10 (a diagnostic, no target) is recall over the first 10 distinct turns, where an item
 *   repeating a turn already retrieved takes no slot.
 * - throughput: turns/s through the route per split, end to end over HTTP, sync and off; and
 *   statements appended per turn.
 *
 * BENCH_SPLIT=dev|held-out|both (default both); EMBEDDINGS=off for BM25 only. The extractor is
 * tuned on dev; held-out is only measured. LoCoMo is read in place, never copied.
 *
 * BENCH_LLM=recorded: the cost of the LLM extractor instead. The service runs it against a local
 * server implementing the chat-completions contract with a recorded answer (./recorded-chat-server.ts:
 * it is not a model, and its answer derives nothing), and the bench reports the calls and prompt
 * tokens per turn the extractor sends for LoCoMo; no recall or quality (nothing is derived).
 */
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
  statements: Omit<StatementScore, 'judged' | 'missed'>;
  ingest: Ingest;
  off: QuestionScore[];
  rules: QuestionScore[];
  readback: { turns: number; mismatches: number };
}

/** What an extractor appended to a memory, read back from its export as the memory says it: statements with their turns. */
async function statementsOf(service: LocomoService, memoryId: string): Promise<ScoredStatement[]> {
  const response = await fetch(`${service.url}/v1/memories/${memoryId}/export`);
  if (response.status !== 200) throw new Error(`export of ${memoryId}: ${response.status} ${await response.text()}`);
  const commands = (await response.text())
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as ExportedCommand);
  const names = new Map<string, string>();
  for (const c of commands) if (c.op === 'UPSERT_ENTITY' && c.entityId !== undefined && !names.has(c.entityId)) names.set(c.entityId, c.name!);
  const name = (id: string) => names.get(id) ?? id;
  return commands.flatMap((c): ScoredStatement[] => {
    if (!c.actor?.startsWith('extractor:') || c.derivedFrom === undefined) return [];
    if (c.op === 'UPSERT_EVENT') return [{ text: c.summary!, turns: c.derivedFrom, content: c.summary!.replace(/^[^:]{1,64}:\s*/u, '') }];
    if (c.op !== 'UPSERT_EDGE') return [];
    const dst = typeof c.dst === 'string' ? name(c.dst) : String(c.dst!.literal);
    return [
      { text: `${name(c.src!)} ${relationPhrase(c.rel!)} ${dst}`, turns: c.derivedFrom, ...(typeof c.dst === 'string' ? {} : { content: dst }) },
    ];
  });
}

interface ExportedCommand {
  op: string;
  actor?: string;
  derivedFrom?: string[];
  entityId?: string;
  name?: string;
  src?: string;
  rel?: string;
  dst?: string | { literal: unknown };
  summary?: string;
}

const APPENDED = new Set(['applied', 'unchanged']);
const ITEM_OPS = new Set(['UPSERT_EDGE', 'UPSERT_EVENT']);

async function ingest(service: LocomoService, conversations: Conversation[]): Promise<Ingest> {
  const result: Ingest = {
    turns: 0,
    syncMs: 0,
    offMs: 0,
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

/** Mean R@10 (or another of a question's figures: 600-token recall, T@10) of a category or of all. */
function mean(scores: readonly QuestionScore[], category?: number, figure: 'r10' | 'packed' | 'turns10' = 'r10'): string {
  const rows = category === undefined ? scores : scores.filter((s) => s.category === category);
  return ((100 * rows.reduce((sum, s) => sum + (s[figure] ?? s.r10), 0)) / Math.max(1, rows.length)).toFixed(1);
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
  const scorer = await loadScorer();
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
        statements: { observations: 0, recalled: 0, statements: 0, precise: 0, copies: 0 },
        ingest: i,
        off: [],
        rules: [],
        readback: { turns: 0, mismatches: 0 },
      };
      for (const c of chosen) {
        const turnText = new Map(c.sessions.flatMap((session) => session.turns.map((t) => [t.dia_id, t.text] as const)));
        const score = scoreStatements(scorer, await statementsOf(service, c.sampleId), observations.get(c.sampleId) ?? [], turnText);
        for (const key of ['observations', 'recalled', 'statements', 'precise', 'copies'] as const) r.statements[key] += score[key];
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
    'statement recall',
    'precision',
    'statements',
    'a turn',
    'copies',
    'sync t/s',
    'off t/s',
    'R@10 off',
    'R@10 sync',
    'MH R@10 off',
    'MH R@10 sync',
    '600-tok off',
    '600-tok sync',
    'T@10 sync',
  ];
  const rows = results.map((r) => [
    r.label,
    String(r.turns),
    String(r.statements.observations),
    pct(r.statements.recalled, r.statements.observations),
    pct(r.statements.precise, r.statements.statements),
    String(r.statements.statements),
    (r.statements.statements / r.turns).toFixed(2),
    String(r.statements.copies),
    ((1000 * r.turns) / r.ingest.syncMs).toFixed(0),
    ((1000 * r.turns) / r.ingest.offMs).toFixed(0),
    mean(r.off),
    mean(r.rules),
    mean(r.off, 1),
    mean(r.rules, 1),
    mean(r.off, undefined, 'packed'),
    mean(r.rules, undefined, 'packed'),
    mean(r.rules, undefined, 'turns10'),
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c]!.length)));
  for (const row of [header, ...rows]) console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '));
  const held = results.find((r) => r.label === 'held-out');
  if (held !== undefined) {
    const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
    const st = held.statements;
    console.log(
      `held-out targets: statement recall >= 50% ${met(st.recalled / st.observations >= 0.5)}, ` +
        `statement precision >= 50% ${met(st.precise / st.statements >= 0.5)}, no copies ${met(st.copies === 0)}, ` +
        `sync >= 100 turns/s ${met((1000 * held.turns) / held.ingest.syncMs >= 100)}, ` +
        `R@10 not below mentions-only ${met(Number(mean(held.rules)) >= Number(mean(held.off)))}, ` +
        `multi-hop R@10 up ${met(Number(mean(held.rules, 1)) > Number(mean(held.off, 1)))}, ` +
        `600-token recall up ${met(Number(mean(held.rules, undefined, 'packed')) > Number(mean(held.off, undefined, 'packed')))}`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
