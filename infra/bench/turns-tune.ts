import { join, resolve } from 'node:path';
import type { TurnsRequest } from '@memotrace/contracts';
import { type MemoryRecord, type MemoryState, decideBatch, fold } from '@memotrace/domain';
import { extractorFromEnv } from '@memotrace/extraction';
import { type EmbeddingProvider, embeddingsFromEnv, textHash } from '@memotrace/search-index';
import type { Batch, CommandHandler } from '../../services/command/src/command-handler';
import { nameSimilarity } from '@memotrace/runtime';
import { TurnIntake } from '../../services/command/src/turn-intake';
import { turnExtraction } from '../../services/command/src/turn-extraction';
import { ReplayMemoryQueries } from '../../services/query/src/replay-queries';
import { cl100k } from '../../services/query/src/search/cl100k';
import { type VectorSource, embeddedRecall } from '../../services/query/src/search/embedded-recall';
import { candidatesInCut, ListCutItems } from '../../services/query/src/search/reference-cut';
import { searchMemory } from '../../services/query/src/search/search';
import { DEV, HELD_OUT, loadLocomo } from './locomo-data';
import { type QuestionScore, type SearchHit, recall, report, retrievedTurns } from './locomo-metrics';

/**
 * `npx tsx infra/bench/turns-tune.ts`: bench:turns' recall in process, for tuning on the DEV split
 * (BENCH_SPLIT=held-out only to measure once). Each session goes through the service's own turn
 * intake (`TurnIntake`, sync, the configured extractor with the name similarity of EMBEDDINGS, and
 * EXTRACTION_GATE) into an in-memory log decided by the domain as the command handler decides it;
 * then every question is searched with the
 * route's pipeline over the reference cut (which the corpus equals, by its property test) As-Recorded
 * one day after the last session, and scored by bench:turns' rule (`retrievedTurns`: a derived item
 * takes a slot as a mention does). Mentions only (`off`) and with derived items (`sync`) side by side.
 * EMBEDDINGS as for the service (vectors cached in .cache/embeddings).
 */
const REPO = resolve(__dirname, '../..');
const DAY = 86_400_000;

/** The command handler's contract over an in-memory log: atomic batches decided by the domain. */
class InMemoryHandler {
  readonly log: MemoryRecord[] = [];
  private state: MemoryState = fold([]);

  async handle(memoryId: string, batch: Batch) {
    try {
      const commands = typeof batch === 'function' ? batch(this.state) : batch;
      const { records, results } = decideBatch(memoryId, this.state, commands, new Date().toISOString());
      this.log.push(...records);
      return { position: this.log.length, results, appended: records.length };
    } catch (error) {
      this.state = fold(this.log);
      throw error;
    }
  }

  async readState<T>(_memoryId: string, view: (state: MemoryState) => T): Promise<T> {
    return view(this.state);
  }
}

/** What the first 10 items that retrieve a turn hold of derived items, and how many of those bring a gold turn no item above them brought. */
interface Slots {
  questions: number;
  derived: number;
  productive: number;
}

async function main(): Promise<void> {
  const split = process.env['BENCH_SPLIT'] === 'held-out' ? HELD_OUT : DEV;
  const only = process.env['CONVERSATIONS']?.split(',');
  const conversations = loadLocomo().filter((c) => split.includes(c.sampleId) && (only === undefined || only.includes(c.sampleId)));
  const provider = embeddingsFromEnv({ ...process.env, EMBEDDINGS_CACHE_DIR: join(REPO, '.cache/embeddings') });
  const extraction = turnExtraction(extractorFromEnv(process.env, provider ? nameSimilarity(provider) : {}), {
    extractionGate: Number(process.env['EXTRACTION_GATE'] ?? 0.5),
    extractionTimeoutMs: 600_000,
  });
  const counter = cl100k();
  const scores = { off: [] as QuestionScore[], sync: [] as QuestionScore[] };
  const slots: Slots = { questions: 0, derived: 0, productive: 0 };
  for (const c of conversations) {
    const at = new Date(Date.parse(c.sessions[c.sessions.length - 1]!.at) + DAY).toISOString();
    const cut = { validAt: process.env['VALID_AT'] === '*' ? ('*' as const) : at, recordedAt: at };
    const memories = {} as Record<'off' | 'sync', { items: ListCutItems; cites: Map<string, string[]> }>;
    for (const mode of ['off', 'sync'] as const) {
      const handler = new InMemoryHandler();
      const intake = new TurnIntake(handler as unknown as CommandHandler, mode === 'sync' ? extraction : undefined);
      const cites = new Map<string, string[]>();
      for (const s of c.sessions) {
        const request: TurnsRequest = {
          sessionId: `${c.sampleId}:session_${s.number}`,
          turns: s.turns.map((t) => ({ turnId: t.dia_id, speaker: t.speaker, text: t.text, at: s.at })),
          recordedAt: s.at,
          extraction: mode,
        };
        for (const d of (await intake.record(c.sampleId, request)).derived) {
          const eventId = d.ids['eventId'];
          if (d.op !== 'UPSERT_EVENT' || d.status !== 'applied' || typeof eventId !== 'string') continue;
          cites.set(`event:${eventId}`, [...new Set([...(cites.get(`event:${eventId}`) ?? []), ...d.turns])]);
        }
      }
      const queries = new ReplayMemoryQueries({ read: async () => handler.log });
      memories[mode] = { items: new ListCutItems(c.sampleId, cut, await candidatesInCut(queries, c.sampleId, cut)), cites };
    }
    const deps = { recall: embeddedRecall(provider && (await vectorSource(provider, [memories.off.items, memories.sync.items], c.questions))) };
    for (const mode of ['off', 'sync'] as const) {
      const { items, cites } = memories[mode];
      for (const q of c.questions) {
        const found = await searchMemory(items, { query: q.question, k: 25 }, counter, deps);
        const ranked = retrievedTurns(found.items, cites);
        if (mode === 'sync') countSlots(slots, found.items, cites, q.evidence);
        scores[mode].push({
          category: q.category,
          r5: recall(q.evidence, ranked.slice(0, 5).flat()),
          r10: recall(q.evidence, ranked.slice(0, 10).flat()),
          r25: recall(q.evidence, ranked.slice(0, 25).flat()),
          packed: 0,
          turns10: recall(q.evidence, [...new Set(ranked.flat())].slice(0, 10)),
        });
      }
    }
  }
  for (const mode of ['off', 'sync'] as const) for (const line of report(mode, scores[mode])) console.log(line.replace(/\s+600-token.*$/, ''));
  const t10 = (rows: QuestionScore[]) => ((100 * rows.reduce((sum, s) => sum + (s.turns10 ?? 0), 0)) / Math.max(1, rows.length)).toFixed(1);
  const better = scores.sync.filter((s, i) => s.r10 > scores.off[i]!.r10 + 1e-9).length;
  const worse = scores.sync.filter((s, i) => s.r10 < scores.off[i]!.r10 - 1e-9).length;
  console.log(`sync T@10 ${t10(scores.sync)}, multi-hop ${t10(scores.sync.filter((s) => s.category === 1))}`);
  console.log(`questions with R@10 above off ${better}, below ${worse}`);
  console.log(
    `derived items among the first 10: ${(slots.derived / slots.questions).toFixed(2)} a question; ` +
      `${slots.productive} of ${slots.derived} bring a gold turn no item above them brought`,
  );
}

/** Item and question vectors from the provider (cached on disk), as the search projection and the query would hold them. */
async function vectorSource(provider: EmbeddingProvider, cuts: ListCutItems[], questions: readonly { question: string }[]): Promise<VectorSource> {
  const texts = [...new Set(cuts.flatMap((items) => [...items.texts()].map((t) => t.text)))];
  const vectors = new Map<string, Float32Array>();
  (await provider.embed(texts)).forEach((v, i) => vectors.set(textHash(texts[i]!), v));
  const asked = questions.map((q) => q.question);
  const queryVectors = new Map<string, Float32Array>();
  (await provider.embed(asked)).forEach((v, i) => queryVectors.set(asked[i]!, v));
  return {
    model: provider.model,
    cosineFloor: provider.cosineFloor ?? 0,
    queryVector: async (query) => queryVectors.get(query) ?? null,
    vectors: async (hashes) => new Map(hashes.flatMap((h) => (vectors.has(h) ? [[h, vectors.get(h)!] as const] : []))),
  };
}

function countSlots(slots: Slots, items: readonly SearchHit[], cites: ReadonlyMap<string, readonly string[]>, gold: readonly string[]): void {
  slots.questions++;
  const seen = new Set<string>();
  let taken = 0;
  for (const item of items) {
    const [turns] = retrievedTurns([item], cites);
    if (turns === undefined) continue;
    if (item.kind !== 'mention') {
      slots.derived++;
      if (turns.some((t) => gold.includes(t) && !seen.has(t))) slots.productive++;
    }
    for (const t of turns) seen.add(t);
    if (++taken === 10) return;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
