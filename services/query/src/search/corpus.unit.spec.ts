import { type Command, type Cut, type MemoryRecord, type SearchDelta, type ValidAt, decideBatch, fold } from '@memotrace/domain';
import { RECORD_TIMES, VALID_TIMES, historyArb, runHistory } from '@memotrace/domain/testing/histories';
import fc from 'fast-check';
import { SearchCorpora } from './corpora';
import { MemoryCorpus } from './corpus';
import { bestFirst, kthLargest } from './best-first';
import { embeddedRecall, nearestByTexts } from './embedded-recall';
import { ENTITY_HUB } from './expand';
import { referenceCut } from './reference-cut';
import { searchMemory } from './search';
import { hashVectorSource } from './testing/hash-vectors';
import { LogSearchFeed } from './testing/log-feed';
import { ReplayMemoryQueries } from '../replay-queries';

/**
 * The corpus (in process, fed by deltas) against the reference (the cut read through
 * the read port, plain whole-list BM25 and graph): over random histories with merges,
 * supersessions, retro-corrections, archives, events and mentions, the corpus is
 * refreshed after every batch and every search must answer byte for byte the same.
 */
const minusMs = (instant: string) => new Date(Date.parse(instant) - 1).toISOString();
// Two instants after every record and valid time: different cuts that see the same items (they share a view).
const LATER = ['2100-01-01T00:00:00.000Z', '2100-01-02T00:00:00.000Z'];
const RECORD_CUTS = [...RECORD_TIMES.flatMap((t) => [minusMs(t), t]), ...LATER];
const VALID_CUTS: ValidAt[] = ['*', ...VALID_TIMES, ...LATER];
const QUERIES = ['Name 1', 'Name 3 works at Name 0', 'hi', 'bye event', 'event 0,1', 'hi before Name 2', 'knows one 1 true', 'works after event'];
const M = 'prop-mem';

const vectorSource = hashVectorSource;
const withVectors = { recall: embeddedRecall(vectorSource, { vectorHits: 3, minCosine: -0.5 }) };

describe('the search corpus answers exactly like the reference', () => {
  it('over random histories, refreshed batch by batch, at cuts around every record time', async () => {
    await fc.assert(
      fc.asyncProperty(historyArb, fc.nat(), async (batches, seed) => {
        const lengths: number[] = [];
        const run = runHistory(batches, { memoryId: M, afterBatch: (_, log) => lengths.push(log.length) });
        let log: readonly MemoryRecord[] = [];
        const corpora = new SearchCorpora(new LogSearchFeed(() => log));
        const queries = new ReplayMemoryQueries({ read: async () => log });
        const same = async (cut: Cut, query: string, k: number, tokenBudget?: number) => {
          const input = { query, k, tokenBudget };
          const [corpusCut, referenceItems] = [await corpora.cut(M, cut), await referenceCut(queries, M, cut)];
          // A short hit list too: only the best are kept when there are more.
          const hits = (items: typeof corpusCut | typeof referenceItems) => JSON.stringify(items.bm25(query, { limit: 2 }));
          if (hits(corpusCut) !== hits(referenceItems))
            throw new Error(`bm25 ${JSON.stringify({ cut, query })}: ${hits(corpusCut)} != ${hits(referenceItems)}`);
          const q = (await vectorSource.queryVector(query))!;
          const nearest = JSON.stringify(await corpusCut.nearest(vectorSource, q, { limit: 2, minCosine: -0.5 }));
          const scored = JSON.stringify(await nearestByTexts(corpusCut, vectorSource, q, { limit: 2, minCosine: -0.5 }));
          if (nearest !== scored) throw new Error(`nearest ${JSON.stringify({ cut, query })}: ${nearest} != ${scored}`);
          for (const deps of [undefined, withVectors]) {
            const fast = JSON.stringify(await searchMemory(corpusCut, input, undefined, deps));
            const reference = JSON.stringify(await searchMemory(referenceItems, input, undefined, deps));
            if (fast !== reference)
              throw new Error(
                `${JSON.stringify({ cut, query, k, tokenBudget, vectors: deps !== undefined })}\ncorpus    ${fast}\nreference ${reference}`,
              );
          }
        };
        let pick = seed;
        const next = <T>(list: readonly T[]) => list[(pick = (pick * 1103515245 + 12345) % 2147483648) % list.length]!;
        for (const length of lengths) {
          log = run.log.slice(0, length);
          // Between batches: a few random cuts (the corpus is refreshed each time).
          for (let i = 0; i < 3; i++) await same({ validAt: next(VALID_CUTS), recordedAt: next(RECORD_CUTS) }, next(QUERIES), 1 + (i % 3) * 4);
        }
        for (const recordedAt of RECORD_CUTS) {
          for (const validAt of VALID_CUTS) await same({ validAt, recordedAt }, next(QUERIES), 10, next([undefined, 8, 30]));
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('the corpus cut', () => {
  const T0 = '2024-05-06T09:00:00.000Z';
  const T1 = '2024-05-07T09:00:00.000Z';
  const turn = (id: string, text: string, recordedAt: string): Command => ({
    op: 'RECORD_MENTION',
    commandId: id,
    mentionId: id,
    docId: 'D1',
    text,
    recordedAt,
  });
  const log: MemoryRecord[] = [];
  for (const [commands, now] of [
    [[turn('D1:9', 'we planned the trip', T0), turn('D1:11', 'the tickets are booked', T0)], T0],
    [[turn('D1:10', 'a turn learnt later', T1)], T1],
  ] as const)
    log.push(...decideBatch(M, fold(log), [...commands], now).records);
  const corpora = new SearchCorpora(new LogSearchFeed(() => log));

  it('links no item through an entity more than ENTITY_HUB items of the cut name, as the reference does', async () => {
    const likes = (i: number, validTo?: string): Command => ({
      op: 'UPSERT_EDGE',
      commandId: `likes-${i}`,
      factId: `likes-${i}`,
      src: 'maya',
      rel: 'likes',
      dst: { literal: `thing ${i}`, datatype: 'string' },
      validFrom: T0,
      ...(validTo === undefined ? {} : { validTo }),
    });
    const commands: Command[] = [
      { op: 'UPSERT_ENTITY', commandId: 'maya', entityId: 'maya', name: 'Maya' },
      { op: 'UPSERT_ENTITY', commandId: 'luna', entityId: 'luna', name: 'Luna' },
      { op: 'UPSERT_EDGE', commandId: 'pet', factId: 'pet', src: 'maya', rel: 'has_pet', dst: 'luna', validFrom: T0 },
      {
        op: 'UPSERT_EDGE',
        commandId: 'bones',
        factId: 'bones',
        src: 'luna',
        rel: 'likes',
        dst: { literal: 'bones', datatype: 'string' },
        validFrom: T0,
      },
      // With the pet fact, ENTITY_HUB + 1 facts name Maya until the last of these ends at T1.
      ...Array.from({ length: ENTITY_HUB - 1 }, (_, i) => likes(i)),
      likes(ENTITY_HUB, T1),
    ];
    const records = decideBatch(M, fold([]), commands, T0).records;
    const cuts = new SearchCorpora(new LogSearchFeed(() => records));
    const reference = (cut: Cut) => referenceCut(new ReplayMemoryQueries({ read: async () => records }), M, cut);
    for (const [validAt, throughMaya] of [
      [T0, false],
      [T1, true],
    ] as const) {
      const cut = { validAt, recordedAt: T0 };
      const items = await cuts.cut(M, cut);
      const neighbours = items.neighbours('fact\u0000pet', 4);
      expect(neighbours).toEqual((await reference(cut)).neighbours('fact\u0000pet', 4));
      expect(neighbours.includes('fact\u0000likes-0')).toBe(throughMaya);
      expect(neighbours.includes('fact\u0000bones')).toBe(!throughMaya); // else the fan-out is full of Maya's
    }
  });

  it('expands to the nearest turn visible in the cut, skipping one recorded later', async () => {
    const cut = { validAt: '*' as const, recordedAt: T0 };
    const items = await corpora.cut(M, cut);
    expect(items.size).toBe(2);
    expect(items.neighbours('mention\u0000D1:9', 4)).toEqual(['mention\u0000D1:11']);
    const later = await corpora.cut(M, { validAt: '*', recordedAt: T1 });
    expect(later.neighbours('mention\u0000D1:9', 4)).toEqual(['mention\u0000D1:10']);
    const result = await searchMemory(items, { query: 'trip', k: 10 });
    expect(result.items.map((i) => i.id)).toEqual(['D1:9', 'D1:11']);
    expect(JSON.stringify(result)).toBe(
      JSON.stringify(await searchMemory(await referenceCut(new ReplayMemoryQueries({ read: async () => log }), M, cut), { query: 'trip', k: 10 })),
    );
  });
});

describe('the corpus watermark', () => {
  const size = (d: SearchDelta) => d.facts.length + d.events.length + d.episodes.length + d.mentions.length + d.entities.length + d.merges.length;

  /** The history step of entity 0's first relation to literal 0, every other field left to its default. */
  const literalEdge = (source: null | 'omit') => ({
    k: 'edge',
    factId: null,
    src: 0,
    rel: 0,
    dst: { lit: 0 },
    validFrom: null,
    validTo: 'omit',
    confidence: 'omit',
    evidence: null,
    source,
  });

  // Found by a CI run: an entity erased and named again at the instant it was first recorded.
  const namedAgainAtOnce = [
    {
      advance: 0,
      lag: 0,
      steps: [
        { step: { k: 'erase', subject: 'entity', ref: 7 }, mode: 'server', resend: true },
        { step: { k: 'event', id: null, facts: [0], from: 0, span: null }, mode: 'server', resend: true },
      ],
    },
    {
      advance: 0,
      lag: 1,
      steps: [
        { step: { k: 'entity', e: 1, alias: null, type: null }, mode: 'server', resend: false },
        { step: literalEdge('omit'), mode: 'regress', resend: true },
      ],
    },
  ] as unknown as Parameters<typeof runHistory>[0];

  // Found by a CI run: an entity erased, named again, and a fact closed at the instant of the new name. The name
  // makes the corpus stale (its facts were rendered with the entity's id), so it is read again whole.
  const namedAgainThenClosed = [
    {
      advance: 2,
      lag: 0,
      steps: [
        { step: { k: 'erase', subject: 'entity', ref: 0 }, mode: 'explicit', resend: true },
        { step: literalEdge(null), mode: 'explicit', resend: true },
      ],
    },
    { advance: 1, lag: 0, steps: [{ step: { k: 'entity', e: 0, alias: null, type: null }, mode: 'explicit', resend: false }] },
    { advance: 1, lag: 1, steps: [{ step: { k: 'archive', f: 0 }, mode: 'server', resend: false }] },
    { advance: 2, lag: 1, steps: [{ step: { k: 'entityByName', name: 'Alice' }, mode: 'explicit', resend: true }] },
  ] as unknown as Parameters<typeof runHistory>[0];

  it('asks for nothing when nothing changed since its last delta (record times at its instant are counted)', async () => {
    await fc.assert(
      fc.asyncProperty(historyArb, async (batches) => {
        const lengths: number[] = [];
        const run = runHistory(batches, { memoryId: M, afterBatch: (_, log) => lengths.push(log.length) });
        let log: readonly MemoryRecord[] = [];
        const feed = new LogSearchFeed(() => log);
        let corpus = new MemoryCorpus();
        for (const length of lengths) {
          log = run.log.slice(0, length);
          // As SearchCorpora refreshes: a delta, and the whole memory again once a delta made the corpus stale.
          if (corpus.watermark !== null) {
            corpus.apply(await feed.itemsSince(M, corpus.watermark));
            if (corpus.stale) corpus = new MemoryCorpus();
          }
          if (corpus.watermark === null) for await (const chunk of feed.allItems(M)) corpus.apply(chunk);
          if (corpus.watermark !== null) expect(size(await feed.itemsSince(M, corpus.watermark))).toBe(0);
        }
      }),
      { numRuns: 60, examples: [[namedAgainAtOnce], [namedAgainThenClosed]] },
    );
  });
});

describe('SearchCorpora', () => {
  it('starts a memory over when its first read fails half way (deltas would never bring the rest)', async () => {
    // The seed's fact at T0, an entity recorded later: a watermark past the fact.
    const log = [...runHistory([], { memoryId: M }).log];
    const later: Command = { op: 'UPSERT_ENTITY', commandId: 'late', entityId: 'e9', name: 'Late', recordedAt: RECORD_TIMES[5]! };
    log.push(...decideBatch(M, fold(log), [later], RECORD_TIMES[5]!).records);
    const feed = new LogSearchFeed(() => log);
    let fail = true;
    const flaky = {
      changeMark: (memoryId: string) => feed.changeMark(memoryId),
      itemsSince: feed.itemsSince.bind(feed),
      async *allItems(memoryId: string) {
        for await (const chunk of feed.allItems(memoryId)) {
          yield { ...chunk, facts: [] }; // names and entities arrive, facts do not
          if (fail) throw new Error('connection lost');
          yield chunk;
        }
      },
    };
    const corpora = new SearchCorpora(flaky);
    const cut = { validAt: '*' as const, recordedAt: RECORD_TIMES[9]! };
    await expect(corpora.cut(M, cut)).rejects.toThrow('connection lost');
    fail = false;
    const items = await corpora.cut(M, cut);
    const reference = await referenceCut(new ReplayMemoryQueries({ read: async () => log }), M, cut);
    expect(items.size).toBe(reference.size);
    expect(items.size).toBeGreaterThan(0);
  });
});

describe('kthLargest', () => {
  it('is the k-th value of a descending sort, ties and duplicates included', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 60 }), fc.nat(), (values, k) => {
        const rank = 1 + (k % values.length);
        const sorted = [...values].sort((a, b) => b - a);
        expect(kthLargest(Float64Array.from(values), rank)).toBe(sorted[rank - 1]);
      }),
    );
  });
});

describe('bestFirst', () => {
  it('is the head of a full sort by score then tie order, however many ties', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 80 }), fc.integer({ min: 1, max: 30 }), (values, limit) => {
        const scores = Float64Array.from(values, (v) => v / 2);
        const indices = Int32Array.from(values.keys()).reverse();
        const tieOrder = (a: number, b: number) => (a % 7) - (b % 7) || a - b;
        const expected = Array.from(indices)
          .sort((a, b) => scores[b]! - scores[a]! || tieOrder(a, b))
          .slice(0, limit);
        expect(bestFirst(indices, scores, limit, tieOrder)).toEqual(expected);
      }),
    );
  });
});
