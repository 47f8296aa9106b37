import { type Command, type MemoryRecord, decideBatch, fold } from '@memotrace/domain';
import { type TestDatabase, createTestDatabase, inTransaction, migrate } from '@memotrace/postgres';
import { type ProjectedRecord, toProjectedRecord } from '@memotrace/projection';
import type { EmbeddingProvider } from './embeddings/port';
import { searchIndexMigrations } from './schema';
import { searchIndexProjection } from './search-projection';
import { textHash } from './text-hash';

/**
 * Erasure in the search index (SPEC §5.2), on a database of its own tables only (no read models:
 * facts are rendered with the names their batch registers): the erased items' rows and the vectors of their texts
 * go (a vector is derived from its text), the provider's cache forgets the texts, and what is not
 * erased stays: another item's row, a text another memory shares, an item named again later.
 */
const T0 = '2024-05-06T09:00:00.000Z';
const T1 = '2024-05-07T09:00:00.000Z';

/** A command without its envelope: `logOf` gives each its id and record time. */
type Draft = Command extends infer C ? (C extends Command ? Omit<C, 'commandId' | 'recordedAt'> : never) : never;

/** A command whose fields the contracts' ERASE type does not state yet (`reason` is required by the schema). */
const erase = (subject: { mentionId: string } | { factId: string } | { entityId: string } | { docId: string }) =>
  ({ op: 'ERASE', subject, reason: 'asked to forget' }) as unknown as Draft;

const CANARY_MENTION = 'the canary sings';
const before: Draft[] = [
  { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'Canaryalice' },
  { op: 'UPSERT_ENTITY', entityId: 'bob', name: 'Bob' },
  { op: 'RECORD_MENTION', mentionId: 'm1', docId: 'd1', text: CANARY_MENTION },
  { op: 'RECORD_MENTION', mentionId: 'm2', docId: 'd1', text: 'the trip was long' },
  { op: 'UPSERT_EDGE', factId: 'f1', src: 'bob', rel: 'livesIn', dst: { literal: 'Canaryville', datatype: 'string' }, validFrom: T0 },
  { op: 'UPSERT_EDGE', factId: 'f2', src: 'alice', rel: 'knows', dst: 'bob', validFrom: T0 },
  {
    op: 'UPSERT_EVENT',
    eventId: 'ev1',
    summary: 'canary party',
    participants: [{ entityId: 'alice', role: 'host' }],
    includesFacts: [],
    timeSpan: { from: T0 },
  },
  { op: 'UPSERT_EVENT', eventId: 'ev2', summary: 'Bob moved', includesFacts: ['f1'], timeSpan: { from: T0 } },
];

/** Records decided batch by batch (each batch at its own record time), with log positions from `first`. */
function projected(memoryId: string, batches: [Draft[], string][], first = 1): ProjectedRecord[] {
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
  return log.map((record, i) => toProjectedRecord(memoryId, first + i, record));
}

/** Embeds by the words it knows; records what it embedded and what it was told to forget. */
function wordProvider(model: string): EmbeddingProvider & { embedded: string[]; forgotten: string[] } {
  const embedded: string[] = [];
  const forgotten: string[] = [];
  return {
    model,
    embedded,
    forgotten,
    async embed(texts) {
      embedded.push(...texts);
      return texts.map((t) => Float32Array.from([/canary/i.test(t) ? 1 : 0, 1]));
    },
    forget(hashes) {
      forgotten.push(...hashes);
    },
  };
}

describe('search index erasure', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
    await migrate(db.pool, searchIndexMigrations);
  });
  afterAll(async () => {
    await db?.drop();
  });

  const project = async (projection: ReturnType<typeof searchIndexProjection>, records: readonly ProjectedRecord[]) => {
    const kept = records
      .map((r) => ({ ...r, changes: r.changes.filter((c) => projection.handles.includes(c.change)) }))
      .filter((r) => r.changes.length > 0);
    await projection.prepare(kept, db.pool);
    await inTransaction(db.pool, (tx) => projection.handle(kept, tx));
  };
  const items = async (memoryId: string) =>
    (
      await db.pool.query<{ item: string }>(`SELECT kind || ':' || item_id AS item FROM si_items WHERE memory_id = $1 ORDER BY 1`, [memoryId])
    ).rows.map((r) => r.item);
  const vectorOf = async (text: string, model = 'words') =>
    (await db.pool.query('SELECT 1 FROM si_vectors WHERE model = $1 AND text_hash = $2', [model, textHash(text)])).rowCount === 1;

  it('deletes the erased items and their vectors; unrelated items, shared texts and later content stay', async () => {
    const provider = wordProvider('words');
    const projection = searchIndexProjection(provider);
    const log = projected('mem', [
      [before, T0],
      [[erase({ mentionId: 'm1' }), erase({ factId: 'f1' }), erase({ entityId: 'alice' })], T1],
    ]);
    const erasedAt = log.findIndex((r) => r.changes.some((c) => c.change === 'erased'));
    // Another memory says the same as m1: its row keeps that text's vector.
    await project(projection, projected('other', [[[{ op: 'RECORD_MENTION', mentionId: 'o1', docId: 'd', text: CANARY_MENTION }], T0]], 100));
    await project(projection, log.slice(0, erasedAt));
    expect(await items('mem')).toEqual(['event:ev1', 'event:ev2', 'fact:f1', 'fact:f2', 'mention:m1', 'mention:m2']);
    for (const text of ['Bob lives in Canaryville', 'canary party', 'Canaryalice knows Bob']) expect(await vectorOf(text)).toBe(true);

    await project(projection, log.slice(erasedAt));
    expect(await items('mem')).toEqual(['event:ev2', 'mention:m2']);
    for (const text of ['Bob lives in Canaryville', 'canary party', 'Canaryalice knows Bob']) expect(await vectorOf(text)).toBe(false);
    expect(await vectorOf('the trip was long')).toBe(true);
    expect(await vectorOf(CANARY_MENTION)).toBe(true); // memory `other` still has it
    expect(await items('other')).toEqual(['mention:o1']);
    expect(provider.forgotten.sort()).toEqual(
      [CANARY_MENTION, 'Bob lives in Canaryville', 'canary party', 'Canaryalice knows Bob'].map((t) => textHash(t)).sort(),
    );
    const { rows } = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM si_vectors v WHERE NOT EXISTS (SELECT 1 FROM si_items i WHERE i.text_hash = v.text_hash)`,
    );
    expect(rows[0]!.n).toBe(0);
  });

  it('never embeds a text erased later in its batch, nor null content; a fact named again keeps its new row', async () => {
    // A model of its own: nothing of the first case is stored for it.
    const provider = wordProvider('words-again');
    const projection = searchIndexProjection(provider);
    const log = projected('same-batch', [
      [before, T0],
      [[erase({ factId: 'f1' }), erase({ docId: 'd1' })], T1],
      [[{ op: 'UPSERT_EDGE', factId: 'f1', src: 'bob', rel: 'livesIn', dst: { literal: 'Canaryville', datatype: 'string' }, validFrom: T1 }], T1],
    ]);
    // Read after its key was destroyed: the content reads null.
    const shredded: ProjectedRecord[] = projected('same-batch', [[[{ op: 'RECORD_MENTION', mentionId: 'm9', docId: 'd9', text: 'x' }], T0]], 50).map(
      (r) => ({ ...r, changes: r.changes.map((c) => (c.change === 'mention' ? { ...c, text: null, speaker: null } : c)) }),
    );
    await project(projection, [...log, ...shredded]);
    expect(provider.embedded.sort()).toEqual(['Canaryalice knows Bob', 'Bob lives in Canaryville', 'Bob moved', 'canary party'].sort());
    // f1 is asserted again after its erasure, with the same literal: new content.
    expect(await items('same-batch')).toEqual(['event:ev1', 'event:ev2', 'fact:f1', 'fact:f2']);
    expect(await vectorOf('Bob lives in Canaryville', 'words-again')).toBe(true);
  });

  it('renders a fact with the names its own batch registers, as search renders it, before any read model has them', async () => {
    const provider = wordProvider('words-named');
    const projection = searchIndexProjection(provider);
    const dana: Draft[] = [
      { op: 'UPSERT_ENTITY', entityId: 'dana', name: 'Dana' },
      { op: 'UPSERT_EDGE', factId: 'f', src: 'dana', rel: 'works_as', dst: { literal: 'data entry', datatype: 'string' }, validFrom: T0 },
    ];
    await project(projection, projected('named', [[dana, T0]]));
    expect(provider.embedded).toEqual(['Dana works as data entry']);
  });
});
