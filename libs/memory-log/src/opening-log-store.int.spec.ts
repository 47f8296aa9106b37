import { parseCommandsRequest } from '@memotrace/contracts';
import { type Command, decideBatch, initialState } from '@memotrace/domain';
import type { StoredRecord } from '@memotrace/log-store';
import { usePostgresStore } from '@memotrace/log-store/testing';
import { migrate } from '@memotrace/postgres';
import { PostgresSubjectKeyStore, subjectKeyMigrations } from '@memotrace/subject-keys';
import { firstValueFrom, take, toArray } from 'rxjs';
import { OpeningLogStore } from './opening-log-store';
import { factTag, memoryStreamId, MEMORY_STREAM_PREFIX } from './records';
import { sealBatch } from './sealing';

const CANARY = 'Quetzal-91be';

function commands(n: number): Command[] {
  const wire = Array.from({ length: n }, (_, i) => [
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
  ]).flat();
  const parsed = parseCommandsRequest({ commands: wire }, () => 'generated');
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
  return parsed.commands as Command[];
}

describe('OpeningLogStore on PostgreSQL', () => {
  const opened = usePostgresStore();

  it('opens sealed content on every read path, while the store as stored holds none of it', async () => {
    const { store, db } = opened;
    await migrate(db.pool, subjectKeyMigrations);
    const keys = new PostgresSubjectKeyStore(db.pool, Buffer.alloc(32, 7));
    const reader = new OpeningLogStore(store, keys);
    const from = await store.headPosition();

    const state = initialState();
    const { records } = decideBatch('m1', state, commands(30), '2024-01-02T00:00:00.000Z');
    await store.append(memoryStreamId('m1'), await sealBatch(keys, 'm1', records, state), { expectedRevision: 'no_stream' });

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
});
