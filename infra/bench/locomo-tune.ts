import { join, resolve } from 'node:path';
import { cachedEmbeddings, mentionText, textHash, useLiteProvider } from '@memotrace/search-index';
import { bm25Scores } from '../../services/query/src/search/bm25';
import { cl100k } from '../../services/query/src/search/cl100k';
import type { Candidate } from '../../services/query/src/search/items';
import { DEFAULT_RANKING, type RankingOptions, rankItems } from '../../services/query/src/search/rank-hybrid';
import { itemKey } from '../../services/query/src/search/recall-backend';
import { ListCutItems } from '../../services/query/src/search/reference-cut';
import { packEvidence } from '../../services/query/src/search/select';
import { DEV, loadLocomo } from './locomo-data';
import { recall } from './locomo-metrics';

/**
 * `npx tsx infra/bench/locomo-tune.ts`: grid over the ranking settings on the DEV
 * split only, in process (same ranking and packing code as the route, candidates
 * built from the data as the route would render them). Needs the vectors cached by
 * a run of bench:locomo (.cache/embeddings).
 */
const REPO = resolve(__dirname, '../..');
const DAY = 86_400_000;

async function main(): Promise<void> {
  const provider = cachedEmbeddings(useLiteProvider(), { dir: join(REPO, '.cache/embeddings') });
  const conversations = loadLocomo(process.env['LOCOMO_FILE'] ?? resolve(REPO, '../shared/data/locomo/locomo10.json')).filter((c) => DEV.includes(c.sampleId));
  const counter = cl100k();
  const prepared = [];
  for (const c of conversations) {
    const candidates: Candidate[] = c.sessions.flatMap((s) =>
      s.turns.map((t) => ({ kind: 'mention' as const, id: t.dia_id, text: mentionText(t), recordedFrom: s.at, occurredAt: s.at, evidence: [], docId: `${c.sampleId}:session_${s.number}` })),
    );
    const vectors = await provider.embed(candidates.map((x) => x.text));
    const queryVectors = await provider.embed(c.questions.map((q) => q.question));
    const reference = Date.parse(c.sessions[c.sessions.length - 1]!.at) + DAY;
    prepared.push({ c, candidates, vectors, queryVectors, reference });
  }
  void textHash;
  const variants: [string, RankingOptions, number][] = [];
  for (const vectorWeight of [0.3, 0.4]) for (const decay of [0.85, 0.95]) for (const rrfK of [5, 10, 20]) for (const seeds of [5, 10])
    variants.push([`vw=${vectorWeight} decay=${decay} rrfK=${rrfK} seeds=${seeds}`, { ...DEFAULT_RANKING, vectorWeight, rrfK, expansion: { ...DEFAULT_RANKING.expansion, decay, seeds, depth: 1 } }, 0.2]);
  const perQuestion = prepared.flatMap(({ c, candidates, vectors, queryVectors, reference }) =>
    c.questions.map((q, qi) => {
      const scores = bm25Scores(candidates.map((x) => x.text), q.question);
      const bm25 = candidates.map((x, i) => ({ key: itemKey(x), score: scores[i]! })).filter((h) => h.score > 0).sort((a, b) => b.score - a.score);
      const qv = queryVectors[qi]!;
      const allVector = candidates.map((x, i) => ({ key: itemKey(x), score: vectors[i]!.reduce((s, v, j) => s + v * qv[j]!, 0) })).sort((a, b) => b.score - a.score);
      const items = new ListCutItems(c.sampleId, { validAt: '*', recordedAt: new Date(reference).toISOString() }, candidates);
      return { q, items, reference, bm25, allVector };
    }),
  );
  for (const [label, options, minCosine] of variants) {
    let r10 = 0, r25 = 0, r5 = 0, packedSum = 0, n = 0;
    for (const { q, items, reference, bm25, allVector } of perQuestion) {
      {
        const vector = allVector.filter((h) => h.score >= minCosine).slice(0, 100);
        const ranked = rankItems(items, { bm25, vector }, { reference, intent: null }, options);
        const ids = ranked.filter((x) => x.kind === 'mention').map((x) => x.id);
        r5 += recall(q.evidence, ids.slice(0, 5));
        r10 += recall(q.evidence, ids.slice(0, 10));
        r25 += recall(q.evidence, ids.slice(0, 25));
        if (process.env['PACKED']) packedSum += recall(q.evidence, packEvidence(ranked, { k: 100, tokenBudget: 600 }, counter).items.map((x) => x.id));
        n++;
      }
    }
    const pct = (x: number) => ((100 * x) / n).toFixed(1);
    console.log(`${label.padEnd(44)} R@5 ${pct(r5)} R@10 ${pct(r10)} R@25 ${pct(r25)}${process.env['PACKED'] ? ` 600tok ${pct(packedSum)}` : ''}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
