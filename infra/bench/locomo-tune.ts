import { join, resolve } from 'node:path';
import { compareIds } from '@memotrace/domain';
import { embeddingsFromEnv, mentionText, textHash } from '@memotrace/search-index';
import { cl100k } from '../../services/query/src/search/cl100k';
import { DEFAULT_EMBEDDED_RECALL, type VectorSource, embeddedRecall } from '../../services/query/src/search/embedded-recall';
import type { Candidate } from '../../services/query/src/search/items';
import { DEFAULT_RANKING, type RankingOptions } from '../../services/query/src/search/rank-hybrid';
import { ListCutItems } from '../../services/query/src/search/reference-cut';
import { searchMemory } from '../../services/query/src/search/search';
import { DEV, loadLocomo } from './locomo-data';
import { type QuestionScore, recall, report } from './locomo-metrics';

/**
 * `npx tsx infra/bench/locomo-tune.ts`: grid over the ranking settings on the DEV
 * split only, in process: the route's own pipeline (`searchMemory`: recall, temporal
 * intent, ranking, packing) over the reference cut of each conversation, with the
 * vectors cached by a run of bench:locomo (.cache/embeddings; `EMBEDDINGS=<model>` picks
 * the model as for the service). `VARIANTS=regex`
 * runs only the matching variants; `PACKED=1` adds the 600-token recall;
 * `CATEGORIES=1` prints each category too.
 */
const REPO = resolve(__dirname, '../..');
const DAY = 86_400_000;

interface Variant {
  label: string;
  ranking: RankingOptions;
  minCosine: number;
}

/** The grid: one setting moved at a time around the defaults. */
function variants(): Variant[] {
  const base = { ranking: DEFAULT_RANKING, minCosine: DEFAULT_EMBEDDED_RECALL.minCosine };
  const out: Variant[] = [{ label: 'default', ...base }];
  const ranking = (label: string, change: Partial<RankingOptions>) => out.push({ ...base, label, ranking: { ...DEFAULT_RANKING, ...change } });
  const expansion = (label: string, change: Partial<RankingOptions['expansion']>) =>
    ranking(label, { expansion: { ...DEFAULT_RANKING.expansion, ...change } });
  for (const vectorWeight of [0, 0.3, 0.7, 1]) ranking(`vectorWeight=${vectorWeight}`, { vectorWeight });
  for (const speakerFactor of [1, 1.2, 2]) ranking(`speakerFactor=${speakerFactor}`, { speakerFactor });
  ranking('vectorOnly', { bm25Weight: 0, vectorWeight: 1 });
  for (const intentFactor of [1, 2, 5, 1000]) ranking(`intentFactor=${intentFactor}`, { intentFactor });
  for (const depth of [0, 1, 3]) expansion(`depth=${depth}`, { depth });
  for (const seeds of [5, 15]) expansion(`seeds=${seeds}`, { seeds });
  for (const decay of [0.7, 0.8, 0.9, 0.95]) expansion(`decay=${decay}`, { decay });
  for (const earlierTurnFactor of [0.8, 1]) expansion(`earlierTurnFactor=${earlierTurnFactor}`, { earlierTurnFactor });
  for (const minCosine of [0.1, 0.3]) out.push({ ...base, label: `minCosine=${minCosine}`, minCosine });
  const only = process.env['VARIANTS'];
  return only === undefined ? out : out.filter((v) => new RegExp(only).test(v.label));
}

async function main(): Promise<void> {
  const provider = embeddingsFromEnv({ ...process.env, EMBEDDINGS_CACHE_DIR: join(REPO, '.cache/embeddings') })!;
  const conversations = loadLocomo().filter((c) => DEV.includes(c.sampleId));
  const counter = cl100k();
  const prepared = [];
  const vectors = new Map<string, Float32Array>();
  const queryVectors = new Map<string, Float32Array>();
  for (const c of conversations) {
    const candidates: Candidate[] = c.sessions.flatMap((s) =>
      s.turns.map((t) => ({
        kind: 'mention' as const,
        id: t.dia_id,
        text: mentionText(t),
        speaker: t.speaker,
        recordedFrom: s.at,
        occurredAt: s.at,
        evidence: [],
        docId: `${c.sampleId}:session_${s.number}`,
      })),
    );
    candidates.sort((a, b) => compareIds(a.id, b.id)); // answer order, as the cut lists them (ties keep it)
    const embedded = await provider.embed(candidates.map((x) => x.text));
    candidates.forEach((x, i) => vectors.set(textHash(x.text), embedded[i]!));
    const questions = c.questions.map((q) => q.question);
    (await provider.embed(questions)).forEach((v, i) => queryVectors.set(questions[i]!, v));
    const at = new Date(Date.parse(c.sessions[c.sessions.length - 1]!.at) + DAY).toISOString();
    prepared.push({ c, items: new ListCutItems(c.sampleId, { validAt: at, recordedAt: at }, candidates) });
  }
  // The vectors as the search projection would hold them, by text hash; the query's from the cache.
  const source: VectorSource = {
    model: provider.model,
    cosineFloor: provider.cosineFloor ?? 0,
    queryVector: async (query) => queryVectors.get(query) ?? null,
    vectors: async (hashes) => new Map(hashes.flatMap((h) => (vectors.has(h) ? [[h, vectors.get(h)!] as const] : []))),
  };
  for (const { label, ranking, minCosine } of variants()) {
    const deps = { recall: embeddedRecall(source, { ...DEFAULT_EMBEDDED_RECALL, minCosine }), ranking };
    const scores: QuestionScore[] = [];
    for (const { c, items } of prepared) {
      for (const q of c.questions) {
        const mentions = (r: { items: { kind: string; id: string }[] }) => r.items.filter((x) => x.kind === 'mention').map((x) => x.id);
        const ids = mentions(await searchMemory(items, { query: q.question, k: 25 }, counter, deps));
        const packed = process.env['PACKED']
          ? recall(q.evidence, mentions(await searchMemory(items, { query: q.question, k: 100, tokenBudget: 600 }, counter, deps)))
          : 0;
        scores.push({
          category: q.category,
          r5: recall(q.evidence, ids.slice(0, 5)),
          r10: recall(q.evidence, ids.slice(0, 10)),
          r25: recall(q.evidence, ids.slice(0, 25)),
          packed,
        });
      }
    }
    const lines = report('dev', scores).map((line) => (process.env['PACKED'] ? line : line.replace(/\s+600-token.*$/, '')));
    console.log(`${label.padEnd(28)} ${lines[0]!.replace(/^dev\s+overall\s+/, '')}`);
    if (process.env['CATEGORIES']) for (const line of lines.slice(1)) console.log(`${''.padEnd(28)} ${line}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
