import { memoryParams, searchRequest } from '@memotrace/contracts';
import { parseInput } from '@memotrace/http-kit';
import type { Instant, TieredKind } from '@memotrace/domain';
import type { FastifyInstance } from 'fastify';
import type { ConsistencyGate } from '../consistency';
import type { SearchCorpora } from './corpora';
import type { RecallBackend } from './recall-backend';
import { type TierStats, searchMemory } from './search';

export interface SearchRouteDeps {
  gate: ConsistencyGate;
  now(): string;
  /** The memories' search corpora, brought up to date with the read models by each search. */
  corpora: SearchCorpora;
  /** Hybrid recall (BM25 + vectors); BM25 only when absent. */
  recall?: RecallBackend | undefined;
  /** Retrieval statistics and tiers (SPEC 5.4); without them every item is hot. */
  tiers?: TierStore | undefined;
}

/** What search reads and writes of the retrieval statistics (ItemTiers). */
export interface TierStore {
  stats(memoryId: string, items: readonly { kind: TieredKind; id: string }[]): ReturnType<TierStats['stats']>;
  returned(memoryId: string, items: readonly { kind: TieredKind; id: string }[], at: Instant): Promise<void>;
}

/**
 * `POST /v1/memories/{memoryId}/search` (SPEC §4, 5.0). `recordedAt` defaults to the
 * request's server time and `validAt` to `"*"`: a question about the past must find the
 * past, so the whole belief timeline at `recordedAt` is searched, and the query's own time
 * expression, else the present, decides what ranks first. A memory without records is
 * 404 UNKNOWN_MEMORY (the gate's check).
 */
export function registerSearchRoute(app: FastifyInstance, { gate, now, corpora, recall, tiers }: SearchRouteDeps): void {
  app.post('/v1/memories/:memoryId/search', async (request) => {
    const { memoryId } = parseInput(memoryParams, request.params, 'path');
    const body = parseInput(searchRequest, request.body, 'body');
    recall?.prepare?.(body.query);
    const at = now();
    const cut = { validAt: body.validAt ?? '*', recordedAt: body.recordedAt ?? at };
    const position = await gate.projectedTo(memoryId, body.minPosition);
    const items = await corpora.cut(memoryId, cut);
    const written = { position, readYourWrites: body.minPosition !== undefined };
    const tierStats = tiers && { stats: (keys: readonly { kind: TieredKind; id: string }[]) => tiers.stats(memoryId, keys) };
    const result = await searchMemory(items, { query: body.query, k: body.k, tokenBudget: body.tokenBudget, tiers: body.tiers }, undefined, {
      ...(recall ? { recall, written } : {}),
      ...(tierStats ? { tiers: tierStats } : {}),
    });
    // What a search returns counts as retrieved and warms a cold item, before the answer, so the next read sees it.
    const returned = result.items.flatMap((item) => (item.tier === undefined ? [] : [{ kind: item.kind as TieredKind, id: item.id }]));
    await tiers?.returned(memoryId, returned, at).catch((error: unknown) => request.log.warn({ err: error }, 'retrieval statistics'));
    return result;
  });
}
