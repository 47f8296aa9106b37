import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCommandsRequest } from '@memotrace/contracts';
import { type Command, type MemoryState, decideBatch, fold, initialState } from '@memotrace/domain';
import { type NewRecord, type StoredRecord, WrongExpectedRevisionError } from '@memotrace/log-store';
import { usePostgresStore } from '@memotrace/log-store/testing';
import { migrate } from '@memotrace/postgres';
import { PostgresSubjectKeyStore, subjectKeyMigrations } from '@memotrace/subject-keys';
import { firstValueFrom, take, toArray } from 'rxjs';
import { OpeningLogStore } from './opening-log-store';
import { factTag, memoryStreamId, MEMORY_STREAM_PREFIX, readMemoryLog } from './records';
import { erasuresOf, sealBatch } from './sealing';

const CANARY = 'Quetzal-91be';

function parsed(wire: unknown[]): Command[] {
  const result = parseCommandsRequest({ commands: wire }, () => 'generated');
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.commands as Command[];
}

function commands(n: number): Command[] {
  return parsed(
    Array.from({ length: n }, (_, i) => [
      { op: 'UPSERT_ENTITY', commandId: `e${i}`, entityId: `p${i}`, name: `${CANARY} ${i}`, reason: `${CANARY} reason` },
      {
        op: 'UPSERT_EDGE',
        commandId: `f${i}`,
        factId: `f${i}`,
        src: `p${i}`,
        rel: 'likes',
        dst: { literal: `${CANARY} literal ${i}` },
        validFrom: '2024-01-01T00:00:00Z',
      },
    ]).flat(),
  );
}

describe('OpeningLogStore on PostgreSQL', () => {
  const opened = usePostgresStore();
  let keys: PostgresSubjectKeyStore;
  let reader: OpeningLogStore;

  beforeAll(async () => {
    await migrate(opened.db.pool, subjectKeyMigrations);
    keys = new PostgresSubjectKeyStore(opened.db.pool, Buffer.alloc(32, 7));
    reader = new OpeningLogStore(opened.store, keys);
  });

  /** Decides and appends a batch as the command handler does: sealed, its key set in the append's transaction, then its erasures destroyed. */
  async function write(memoryId: string, state: MemoryState, batch: Command[], at: string) {
    const expected = state.eventCount - 1;
    const { records } = decideBatch(memoryId, state, batch, at);
    const sealed = sealBatch(keys, memoryId, records, state, expected + 1);
    await reader.append(memoryStreamId(memoryId), sealed.records, {
      expectedRevision: expected < 0 ? 'no_stream' : expected,
      ...(sealed.keySet && { alongside: (tx) => keys.writeKeySet(memoryId, sealed.keySet!, tx) }),
    });
    await keys.destroy(memoryId, erasuresOf(sealed.records));
    return sealed;
  }

  it('opens sealed content on every read path, while the store as stored holds none of it', async () => {
    const { store } = opened;
    const from = await store.headPosition();
    await write('m1', initialState(), commands(30), '2024-01-02T00:00:00.000Z');

    const raw = await store.readStream(memoryStreamId('m1'));
    expect(JSON.stringify(raw)).not.toContain(CANARY);

    const names = (read: { type: string; data: unknown }[]) =>
      read.filter((r) => r.type === 'EntityRegistered').map((r) => (r.data as { name: string }).name);
    const expected = Array.from({ length: 30 }, (_, i) => `${CANARY} ${i}`);
    expect(names(await reader.readStream(memoryStreamId('m1')))).toEqual(expected);
    expect(names(await reader.readStreamContent(memoryStreamId('m1')))).toEqual(expected);
    expect(names(await reader.readAll({ fromPosition: from, maxCount: 1000, streamPrefix: MEMORY_STREAM_PREFIX }))).toEqual(expected);
    expect(names(await reader.readAllContent({ fromPosition: from, maxCount: 1000, streamPrefix: MEMORY_STREAM_PREFIX }))).toEqual(expected);
    const [tagged] = await reader.readByTag(factTag('m1', 'f7'));
    expect(tagged!.data).toMatchObject({ dst: { literal: `${CANARY} literal 7` } });
    expect((await reader.readStream(memoryStreamId('m1')))[0]!.metadata.reason).toBe(`${CANARY} reason`);

    // The subscription keeps log order while it opens records in batches.
    const delivered: StoredRecord[] = await firstValueFrom(
      reader.subscribe({ fromPosition: from, streamPrefix: MEMORY_STREAM_PREFIX }).pipe(take(60), toArray()),
    );
    expect(delivered.map((r) => r.position)).toEqual(raw.map((r) => r.position));
    expect(names(delivered)).toEqual(expected);
  });

  it('writes a batch’s key set exactly when its records are: an append that fails writes neither', async () => {
    const { db } = opened;
    const state = initialState();
    await write('m2', state, commands(2), '2024-01-02T00:00:00.000Z');
    const keySets = async () =>
      (await db.pool.query<{ key_set: string }>("SELECT key_set FROM mt_content_keys WHERE memory_id = 'm2' ORDER BY 1")).rows.map((r) =>
        Number(r.key_set),
      );
    expect(await keySets()).toEqual([0]);

    // A stale writer: its revision check fails, so its key set is not written either.
    const stale = initialState();
    const { records } = decideBatch('m2', stale, commands(1), '2024-01-03T00:00:00.000Z');
    const sealed = sealBatch(keys, 'm2', records, stale, 0);
    await expect(
      reader.append(memoryStreamId('m2'), sealed.records.map(renamed), {
        expectedRevision: 'no_stream',
        alongside: (tx) => keys.writeKeySet('m2', { ...sealed.keySet!, id: 99 }, tx),
      }),
    ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    // The records go back when writing the key set fails.
    await expect(
      reader.append(memoryStreamId('m2'), sealed.records.map(renamed), {
        expectedRevision: 3,
        alongside: async (tx) => {
          await keys.writeKeySet('m2', { ...sealed.keySet!, id: 4 }, tx);
          await tx.query('SELECT 1/0');
        },
      }),
    ).rejects.toThrow(/division by zero/);
    expect(await keySets()).toEqual([0]);
    expect(await opened.store.readStream(memoryStreamId('m2'))).toHaveLength(4);
  });

  it('opens a log sealed in the first stored format, and an erasure now destroys its keys and the key sets’ alike', async () => {
    const { db, store } = opened;
    const fixture = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'first-format-log.json'), 'utf8')) as FirstFormatLog;
    const memoryId = fixture.memoryId;
    await db.pool.query(
      `INSERT INTO mt_subject_keys (memory_id, subject_kind, subject_id, generation, wrapped, destroyed_at)
       SELECT $1, kind, id, generation, wrapped, CASE WHEN wrapped IS NULL THEN now() END
       FROM unnest($2::text[], $3::text[], $4::integer[], $5::bytea[]) AS k(kind, id, generation, wrapped)`,
      [
        memoryId,
        fixture.keys.map((k) => k.kind),
        fixture.keys.map((k) => k.id),
        fixture.keys.map((k) => k.generation),
        fixture.keys.map((k) => (k.wrapped === null ? null : Buffer.from(k.wrapped, 'base64'))),
      ],
    );
    await store.append(memoryStreamId(memoryId), fixture.records, { expectedRevision: 'no_stream' });
    keys = new PostgresSubjectKeyStore(db.pool, Buffer.from(fixture.masterKey, 'base64'));
    reader = new OpeningLogStore(store, keys);

    const read = async () => readMemoryLog(reader, memoryId);
    const byCommand = async (commandId: string, index = 0) => (await read()).filter((r) => r.meta.commandId === commandId)[index]!;
    expect(await byCommand('c1')).toMatchObject({
      data: { name: 'Ines Quaresma', aliases: ['Ines'], types: ['person'] },
      meta: { reason: 'told by Ines herself' },
    });
    expect(await byCommand('c3')).toMatchObject({
      data: { dst: { literal: 'penicillin' }, source: 'clinic letter' },
      meta: { reason: 'Ines mentioned her allergy' },
    });
    expect(await byCommand('c6')).toMatchObject({
      data: { text: 'I am allergic to penicillin, said Ines', speaker: 'Ines Quaresma' },
      meta: { reason: 'turn 3' },
    });
    expect(await byCommand('c9', 1)).toMatchObject({ type: 'FactSuperseded', meta: { reason: 'Ines moved to Lisbon' } });
    expect(await byCommand('c10')).toMatchObject({
      type: 'CommandUnchanged',
      data: { command: { name: 'Ines Quaresma' } },
      meta: { reason: 'said again' },
    });
    // Erased then: Tomas, and what named him.
    expect(await byCommand('c2')).toMatchObject({ data: { name: null }, meta: { reason: null } });
    expect(await byCommand('c4')).toMatchObject({ data: { source: null } });
    expect(await byCommand('c5')).toMatchObject({ data: { summary: null } });

    // The memory goes on in key sets; erasing Ines now reaches both formats.
    const state = fold(await read());
    await write(
      memoryId,
      state,
      parsed([{ op: 'UPSERT_ENTITY', commandId: 'c12', entityId: 'p1', name: 'Ines Quaresma', aliases: [`${CANARY} alias`], reason: 'new' }]),
      '2025-06-02T00:00:00.000Z',
    );
    expect(await byCommand('c12')).toMatchObject({ data: { aliases: [`${CANARY} alias`] }, meta: { reason: 'new' } });
    await write(
      memoryId,
      state,
      parsed([{ op: 'ERASE', commandId: 'c13', subject: { entityId: 'p1' }, reason: 'Ines asked too' }]),
      '2025-06-03T00:00:00.000Z',
    );
    const after = JSON.stringify(await read());
    for (const text of ['Lisbon', 'Porto', 'clinic letter', CANARY, 'told by Ines herself', 'Ines moved to Lisbon', 'said again']) {
      expect([text, after.includes(text)]).toEqual([text, false]);
    }
    expect(await byCommand('c1')).toMatchObject({ data: { name: null, aliases: [], types: [] }, meta: { reason: null } });
    expect(await byCommand('c3')).toMatchObject({ data: { dst: null, source: null }, meta: { reason: null } });
    expect(await byCommand('c10')).toMatchObject({ data: { command: { name: null, aliases: [] } }, meta: { reason: null } });
    // The mention is its own subject: its text and speaker stay.
    expect(await byCommand('c6')).toMatchObject({ data: { text: 'I am allergic to penicillin, said Ines', speaker: 'Ines Quaresma' } });
    expect(await byCommand('c13')).toMatchObject({ type: 'SubjectErased', meta: { reason: 'Ines asked too' } });
  });
});

/** The batch's records under other ids, as another command's would be. */
const renamed = (record: NewRecord, i: number): NewRecord => ({ ...record, recordId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}` });

interface FirstFormatLog {
  memoryId: string;
  masterKey: string;
  keys: { kind: string; id: string; generation: number; wrapped: string | null }[];
  records: NewRecord[];
}
