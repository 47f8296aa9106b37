import { type Change, type Command, type ContentErased, type MemoryRecord, decideBatch, fold } from '@memotrace/domain';
import { type ProjectedRecord, toProjectedRecord } from '@memotrace/projection';
import type { OpenSearchItemIndex } from './opensearch-item-index';
import { openSearchProjection } from './search-projection';
import { describeWithOpenSearch, freshIndex, hashedEmbedding } from './testing/opensearch-test-env';

/**
 * Erasure in OpenSearch (SPEC §5.2), on a real node: after it, no document of the memory holds an
 * erased text (text, payload or vector), no search finds one at any cut, the items including an
 * erased one keep their visibility, unrelated items stay searchable, and the embedder forgets the
 * texts. Replaying the batches, or rebuilding from a log whose content reads null (crypto-shredded),
 * gives the same documents.
 */
const T0 = '2024-05-06T09:00:00.000Z';
const T1 = '2024-05-07T09:00:00.000Z';
const CANARY = /canary/i;

/** A command without its envelope: `decided` gives each its id and record time. */
type Draft = Command extends infer C ? (C extends Command ? Omit<C, 'commandId' | 'recordedAt'> : never) : never;

/** The contracts' ERASE type does not state `reason` yet (the schema requires it). */
const erase = (subject: { mentionId: string } | { factId: string } | { entityId: string }) =>
  ({ op: 'ERASE', subject, reason: 'asked to forget' }) as unknown as Draft;

const before: Draft[] = [
  { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'Canaryalice' },
  { op: 'UPSERT_ENTITY', entityId: 'bob', name: 'Bob' },
  { op: 'RECORD_MENTION', mentionId: 'm1', docId: 'd1', text: 'the canary sings at the trip', speaker: 'Canaryspeaker' },
  { op: 'RECORD_MENTION', mentionId: 'm2', docId: 'd1', text: 'the trip was long' },
  {
    op: 'UPSERT_EDGE',
    factId: 'f1',
    src: 'bob',
    rel: 'livesIn',
    dst: { literal: 'Canaryville', datatype: 'string' },
    evidence: ['m1'],
    validFrom: T0,
    source: 'canary notes',
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
    summary: 'canary party',
    participants: [{ entityId: 'alice', role: 'host' }],
    includesFacts: [],
    timeSpan: { from: T0 },
  },
  { op: 'UPSERT_EVENT', eventId: 'ev2', summary: 'Bob moved for the trip', includesFacts: ['f1', 'f3'], timeSpan: { from: T0 } },
  { op: 'UPSERT_EPISODE', episodeId: 'ep1', title: 'the trip week', window: { from: T0 }, events: ['ev1'] },
];
const erasures = [erase({ mentionId: 'm1' }), erase({ factId: 'f1' }), erase({ entityId: 'alice' })];

function decided(memoryId: string, batches: [Draft[], string][]): ProjectedRecord[] {
  const log: MemoryRecord[] = [];
  for (const [commands, now] of batches)
    log.push(
      ...decideBatch(
        memoryId,
        fold(log),
        commands.map((c, i) => ({ ...c, commandId: `${now}-${log.length + i}`, recordedAt: now }) as Command),
        now,
      ).records,
    );
  return log.map((record, i) => toProjectedRecord(memoryId, i + 1, record));
}

/**
 * The log as read after the subjects' keys were destroyed: the content of the items the erasures
 * list reads null in the records before them (the lists are the erasures' own).
 */
function shredded(records: readonly ProjectedRecord[]): ProjectedRecord[] {
  const erased = records.flatMap((r) => r.changes.filter((c): c is ContentErased => c.change === 'erased'));
  const has = (list: 'facts' | 'events' | 'mentions' | 'entities', id: string) => erased.some((e) => e[list].includes(id));
  const shred = (change: Change): Change => {
    if (change.change === 'entity' && has('entities', change.entityId)) return { ...change, name: null, aliases: [], types: [] };
    if (change.change === 'mention' && has('mentions', change.mentionId)) return { ...change, text: null, speaker: null };
    if (change.change !== 'opened') return change;
    if (change.kind === 'fact' && has('facts', change.id))
      return { ...change, content: { ...change.content, dst: typeof change.content.dst === 'string' ? change.content.dst : null, source: null } };
    if (change.kind === 'event' && has('events', change.id)) return { ...change, content: { ...change.content, summary: null } };
    return change;
  };
  return records.map((r) => ({ ...r, changes: r.changes.map(shred) }));
}

async function dump(index: OpenSearchItemIndex, memoryId: string): Promise<[string, unknown][]> {
  const { body } = await index.client.search({
    index: index.index,
    routing: memoryId,
    body: { size: 10000, query: { term: { memoryId } }, sort: [{ itemKey: 'asc' }] },
  });
  return (body.hits.hits as { _id: string; _source: unknown }[]).map((h) => [h._id, h._source]);
}

describeWithOpenSearch('openSearchProjection erasure against a real node', (url) => {
  let index: OpenSearchItemIndex;
  const forgotten: string[] = [];
  const embedder = {
    embed: async (texts: readonly string[]) => texts.map((t) => hashedEmbedding(t)),
    forget: (texts: readonly string[]) => void forgotten.push(...texts),
  };
  beforeAll(async () => {
    index = await freshIndex(url, 'erasure');
  });
  afterAll(async () => {
    await index?.dropIndex();
    await index?.close();
  });

  const project = async (records: readonly ProjectedRecord[], sizes: number[] = [records.length]) => {
    const projection = openSearchProjection(index, { embedder });
    for (let i = 0, s = 0; i < records.length; s++) {
      const batch = records.slice(i, i + sizes[s % sizes.length]!);
      await projection.handle(batch);
      i += batch.length;
    }
  };
  const searches = async (memoryId: string, recordedAt: string) => {
    const cut = { validAt: '*' as const, recordedAt };
    const found: string[] = [];
    for (const query of ['canary', 'Canaryville', 'Canaryalice', 'Canaryspeaker', 'canary notes', 'trip']) {
      for (const hit of [...(await index.bm25(memoryId, query, cut, 50)), ...(await index.knn(memoryId, hashedEmbedding(query), cut, 50))])
        found.push(`${hit.kind}:${hit.itemId}`);
    }
    return found;
  };

  it('leaves no erased text in the index; unrelated items stay searchable; visibility keeps its shape', async () => {
    const log = decided('erased', [
      [before, T0],
      [erasures, T1],
    ]);
    const at = log.findIndex((r) => r.changes.some((c) => c.change === 'erased'));
    await project(log.slice(0, at));
    expect(JSON.stringify(await dump(index, 'erased'))).toMatch(CANARY);
    expect(await searches('erased', T0)).toEqual(expect.arrayContaining(['mention:m1', 'fact:f1', 'fact:f2', 'event:ev1']));

    await project(log.slice(at));
    const docs = await dump(index, 'erased');
    expect(JSON.stringify(docs)).not.toMatch(CANARY);
    for (const recordedAt of [T0, T1]) {
      const found = await searches('erased', recordedAt);
      for (const erased of ['mention:m1', 'fact:f1', 'fact:f2', 'event:ev1']) expect(found).not.toContain(erased);
      expect(found).toEqual(expect.arrayContaining(['mention:m2', 'fact:f3', 'event:ev2', 'episode:ep1']));
      // ev2 includes the erased fact f1, ep1 the erased event ev1: they stay visible, the erased items are none.
      expect(await index.visible('erased', { validAt: '*', recordedAt })).toEqual(['episode:ep1', 'event:ev2', 'fact:f3', 'mention:m2']);
    }
    // The erased versions keep their structure only.
    const f1 = docs
      .map(([, d]) => d as { itemKey: string; text: string; vector?: unknown; erased?: boolean })
      .find((d) => d.itemKey.startsWith('fact:f1#'));
    expect(f1).toMatchObject({ text: '', vector: null, erased: true, payload: { src: 'bob', rel: 'livesIn', dst: null } });
    expect(forgotten.filter((t) => CANARY.test(t)).length).toBeGreaterThanOrEqual(4);

    // A replayed batch, in other sizes, writes the same documents; so does a rebuild from the log read after shredding.
    await project(log, [3, 1, 5]);
    expect(await dump(index, 'erased')).toEqual(docs);
    const rebuilt = decided('rebuilt', [
      [before, T0],
      [erasures, T1],
    ]);
    await project(shredded(rebuilt), [2, 7]);
    const sources = (d: [string, unknown][]) => d.map(([, source]) => ({ ...(source as object), memoryId: 'x' }));
    expect(sources(await dump(index, 'rebuilt'))).toEqual(sources(docs));
  });
});
