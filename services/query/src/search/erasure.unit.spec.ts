import { type Command, type Cut, type MemoryRecord, decideBatch, fold } from '@memotrace/domain';
import { textHash } from '@memotrace/search-index';
import { SearchCorpora } from './corpora';
import { type VectorSource, embeddedRecall } from './embedded-recall';
import { referenceCut } from './reference-cut';
import { searchMemory } from './search';
import { LogSearchFeed } from './testing/log-feed';
import { ReplayMemoryQueries } from '../replay-queries';

/**
 * SPEC §5.2: search never returns an erased text. A corpus warmed before the erasure drops
 * the erased items at its next search (at every cut, the past included), the items erased
 * only in part keep their structure (an event including an erased fact stays visible), and
 * unrelated items stay searchable; the answers equal the reference's.
 */
const M = 'erasure-mem';
const T0 = '2024-05-06T09:00:00.000Z';
const T1 = '2024-05-07T09:00:00.000Z';
const T2 = '2024-05-08T09:00:00.000Z';
const CANARY = /canary/i;

/** A command without its envelope: `logOf` gives each its id and record time. */
type Draft = Command extends infer C ? (C extends Command ? Omit<C, 'commandId' | 'recordedAt'> : never) : never;

const before: Draft[] = [
  { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'Canaryalice' },
  { op: 'UPSERT_ENTITY', entityId: 'bob', name: 'Bob' },
  { op: 'RECORD_MENTION', mentionId: 'm1', docId: 'd1', text: 'the canary sings at the trip', speaker: 'Canaryspeaker' },
  { op: 'RECORD_MENTION', mentionId: 'm2', docId: 'd1', text: 'the trip was long' },
  { op: 'RECORD_MENTION', mentionId: 'm3', docId: 'd1', text: 'we booked the trip home' },
  {
    op: 'UPSERT_EDGE',
    factId: 'f1',
    src: 'bob',
    rel: 'livesIn',
    dst: { literal: 'Canaryville', datatype: 'string' },
    evidence: ['m1', 'm2'],
    validFrom: T0,
  },
  { op: 'UPSERT_EDGE', factId: 'f2', src: 'alice', rel: 'knows', dst: 'bob', validFrom: T0 },
  {
    op: 'UPSERT_EDGE',
    factId: 'f3',
    src: 'bob',
    rel: 'worksAt',
    dst: { literal: 'Acme trip agency', datatype: 'string' },
    evidence: ['m2'],
    validFrom: T0,
  },
  {
    op: 'UPSERT_EVENT',
    eventId: 'ev1',
    summary: 'canary party trip',
    participants: [{ entityId: 'alice', role: 'host' }],
    includesFacts: [],
    timeSpan: { from: T0 },
  },
  { op: 'UPSERT_EVENT', eventId: 'ev2', summary: 'Bob moved for the trip', includesFacts: ['f1', 'f3'], timeSpan: { from: T0 } },
  { op: 'UPSERT_EPISODE', episodeId: 'ep1', title: 'the trip week', window: { from: T0 }, events: ['ev1'] },
];
/** The contracts' ERASE type does not state `reason` yet (the schema requires it). */
const erase = (subject: { mentionId: string } | { factId: string } | { entityId: string }) =>
  ({ op: 'ERASE', subject, reason: 'asked to forget' }) as unknown as Draft;
const erasures: Draft[] = [erase({ mentionId: 'm1' }), erase({ factId: 'f1' }), erase({ entityId: 'alice' })];

function logOf(batches: [Draft[], string][]): MemoryRecord[] {
  const log: MemoryRecord[] = [];
  for (const [commands, now] of batches) {
    const decided = decideBatch(
      M,
      fold(log),
      commands.map((c, i) => ({ ...c, commandId: `${now}-${i}`, recordedAt: now }) as Command),
      now,
    );
    log.push(...decided.records);
  }
  return log;
}

/** Vectors from the words of a text (4-d): a canary query is near a canary text. */
const wordVector = (text: string) => Float32Array.from([CANARY.test(text) ? 1 : 0, /trip/i.test(text) ? 1 : 0, 0.1, 0.1]);
const embedded = new Map<string, Float32Array>();
const vectors: VectorSource = {
  model: 'words-4',
  queryVector: async (query) => wordVector(query),
  vectors: async (hashes) => new Map(hashes.flatMap((h) => (embedded.has(h) ? [[h, embedded.get(h)!] as const] : []))),
};

describe('search after an erasure', () => {
  let log: MemoryRecord[] = logOf([[before, T0]]);
  const forgotten: string[] = [];
  const corpora = new SearchCorpora(new LogSearchFeed(() => log), { maxVersions: 10_000, onErasure: (memoryId) => forgotten.push(memoryId) });
  const replay = new ReplayMemoryQueries({ read: async () => log });
  const QUERIES = ['canary', 'Canaryville', 'Canaryalice knows Bob', 'Canaryspeaker', 'canary party trip', 'trip'];

  /** Every query at the cut, answered by the corpus and by the reference: equal, and the answer's texts. */
  const answers = async (cut: Cut): Promise<string[]> => {
    const texts: string[] = [];
    const items = await corpora.cut(M, cut);
    const reference = await referenceCut(replay, M, cut);
    for (const text of [...items.texts()].map((t) => t.text)) embedded.set(textHash(text), wordVector(text));
    for (const query of QUERIES) {
      for (const deps of [undefined, { recall: embeddedRecall(vectors, { vectorHits: 10, minCosine: 0 }) }]) {
        const fast = await searchMemory(items, { query, k: 20 }, undefined, deps);
        expect(JSON.stringify(fast)).toBe(JSON.stringify(await searchMemory(reference, { query, k: 20 }, undefined, deps)));
        texts.push(...fast.items.map((i) => i.text));
      }
    }
    return texts;
  };

  it('finds the canary before, and never after, at any cut; unrelated items stay', async () => {
    const now = { validAt: '*' as const, recordedAt: T1 };
    const warm = await answers(now);
    expect(warm.filter((t) => CANARY.test(t)).length).toBeGreaterThan(0);

    log = logOf([
      [before, T0],
      [erasures, T2],
    ]);
    for (const cut of [now, { validAt: '*' as const, recordedAt: T2 }, { validAt: T0, recordedAt: T0 }]) {
      const after = await answers(cut);
      expect(after.filter((t) => CANARY.test(t))).toEqual([]);
      expect(after.some((t) => t.includes('the trip was long'))).toBe(true);
      expect(after.some((t) => t.includes('Bob works at Acme trip agency'))).toBe(true);
    }
    expect(forgotten).toEqual([M]);
  });

  it('keeps the structure: an event including an erased fact is still an item, listing it by id', async () => {
    const items = await corpora.cut(M, { validAt: '*', recordedAt: T2 });
    const keys = [...items.texts()].map((t) => t.key.replace('\u0000', ':'));
    expect(keys).toEqual(expect.arrayContaining(['event:ev2', 'fact:f3', 'mention:m2', 'mention:m3', 'episode:ep1']));
    for (const erased of ['mention:m1', 'fact:f1', 'fact:f2', 'event:ev1']) expect(keys).not.toContain(erased);
    expect(items.candidate('event\u0000ev2')!.evidence).toEqual([
      { kind: 'fact', id: 'f1' },
      { kind: 'fact', id: 'f3' },
    ]);
    // Neighbouring turns skip the erased one; no neighbour is an erased item.
    expect(items.neighbours('mention\u0000m2', 4)).not.toContain('mention\u0000m1');
    for (const key of ['event\u0000ev2', 'fact\u0000f3', 'mention\u0000m2', 'episode\u0000ep1'])
      for (const n of items.neighbours(key, 10)) expect(['mention\u0000m1', 'fact\u0000f1', 'fact\u0000f2', 'event\u0000ev1']).not.toContain(n);
  });
});
