import { randomBytes } from 'node:crypto';
import { type TestDatabase, createPool, createTestDatabase, migrate } from '@memotrace/postgres';
import type pg from 'pg';
import { CachingKeyStore } from './caching-key-store';
import { openBox, openLegacyContent, sealBox } from './content-seal';
import { databaseMasterKey } from './master-key';
import { subjectKeyMigrations } from './migrations';
import { PostgresSubjectKeyStore, deleteMemoryKeysIn } from './postgres-subject-key-store';
import type { KeyRef, NewKeySet, SubjectErasure, SubjectKind } from './subject-key-store';
import { sealLegacyContent, writeLegacyKeys } from './testing/legacy-format';

jest.setTimeout(60_000);

const memory = () => `mem-${randomBytes(4).toString('hex')}`;
const erasure = (id: string, throughGeneration = 0, kind: SubjectKind = 'entity'): SubjectErasure => ({ subject: { kind, id }, throughGeneration });
const key = (keys: Buffer, slot: number) => keys.subarray(slot * 32, (slot + 1) * 32);

/** A pool that counts the statements sent through it. */
function counting(pool: pg.Pool): { pool: Pick<pg.Pool, 'query'>; statements: string[] } {
  const statements: string[] = [];
  const query = ((text: string, values?: unknown[]) => {
    statements.push(text.trim().split(/\s+/)[0]!);
    return pool.query(text, values);
  }) as pg.Pool['query'];
  return { pool: { query }, statements };
}

describe('PostgresSubjectKeyStore', () => {
  let db: TestDatabase;
  let store: PostgresSubjectKeyStore;
  const masterKey = randomBytes(32);

  /** Writes a key set in a transaction of its own; `boxes` lists each box's guarding subject refs. */
  async function write(m: string, id: number, boxes: string[][], commit = true): Promise<Buffer> {
    const { keys, seeds } = store.newKeys(boxes.length);
    const set: NewKeySet = { id, seeds, subjects: boxes.flat(), guards: boxes.flatMap((names, slot) => names.map(() => slot)) };
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await store.writeKeySet(m, set, client);
      await client.query(commit ? 'COMMIT' : 'ROLLBACK');
    } finally {
      client.release();
    }
    return keys;
  }
  const slots = async (m: string, id: number, s = store) => {
    const set = (await s.keySets(m, [id])).get(id)!;
    return Array.from({ length: set.size }, (_, slot) => set.key(slot));
  };
  const rowVersions = async (m: string) =>
    (
      await db.pool.query<{ v: string }>(
        `SELECT string_agg(xmin::text, ',' ORDER BY t, k) AS v FROM (
           SELECT 'set' AS t, key_set::text AS k, xmin FROM mt_content_keys WHERE memory_id = $1
           UNION ALL SELECT 'key', subject_kind || subject_id || generation, xmin FROM mt_subject_keys WHERE memory_id = $1) x`,
        [m],
      )
    ).rows[0]!.v;

  beforeAll(async () => {
    db = await createTestDatabase();
    expect(await migrate(db.pool, subjectKeyMigrations)).toEqual([
      'SubjectKeysSchema1796100000000',
      'SubjectKeyTombstones1796400000000',
      'ContentKeySets1796800000000',
    ]);
    store = new PostgresSubjectKeyStore(db.pool, masterKey);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('a key set written in a transaction reads back, from another store too, when the transaction commits; not when it rolls back', async () => {
    const m = memory();
    const keys = await write(m, 0, [['entity:0:a'], ['fact:0:f', 'entity:0:a', 'entity:0:b'], ['mention:0:m1', 'doc:0:d']]);
    await write(m, 3, [['entity:0:c']], false);
    const read = await new PostgresSubjectKeyStore(db.pool, masterKey).keySets(m, [0, 3, 9]);
    expect([...read.keys()]).toEqual([0]);
    expect(await slots(m, 0)).toEqual([key(keys, 0), key(keys, 1), key(keys, 2)]);
    expect(await store.keySets(memory(), [0])).toEqual(new Map());
  });

  it('the table holds the seeds, never a key: 32 bytes a box, and the boxes sealed under the keys open with what the store reads', async () => {
    const m = memory();
    const keys = await write(m, 7, [['entity:0:a'], ['entity:0:b']]);
    const { rows } = await db.pool.query<{ seeds: Buffer; subjects: string[]; guards: number[] }>(
      'SELECT seeds, subjects, guards FROM mt_content_keys WHERE memory_id = $1',
      [m],
    );
    expect(rows[0]!.seeds).toHaveLength(64);
    expect(rows[0]!.seeds.includes(key(keys, 0).subarray(0, 8))).toBe(false);
    expect(rows[0]!.seeds.includes(key(keys, 1).subarray(0, 8))).toBe(false);
    expect([rows[0]!.subjects, rows[0]!.guards]).toEqual([
      ['entity:0:a', 'entity:0:b'],
      [0, 1],
    ]);
    const aad = Buffer.from(m);
    const box = sealBox(key(keys, 1), aad, { name: 'Bea' });
    expect(openBox((await slots(m, 7))[1]!, aad, box)).toEqual({ name: 'Bea' });
    // Another master key makes other keys: nothing opens.
    const wrong = (await slots(m, 7, new PostgresSubjectKeyStore(db.pool, randomBytes(32))))[1]!;
    expect(() => openBox(wrong, aad, box)).toThrow(/does not open/);
    expect(() => new PostgresSubjectKeyStore(db.pool, randomBytes(16))).toThrow(/master key is 32 bytes, got 16/);
  });

  it('destroy zeroes every key listed under the subject’s generations through the erasure’s, in every key set, and nothing else', async () => {
    const m = memory();
    const first = await write(m, 0, [['entity:0:alice'], ['fact:0:f', 'entity:0:alice', 'entity:0:bob'], ['entity:0:bob']]);
    const second = await write(m, 3, [['entity:1:alice'], ['entity:0:alice', 'mention:0:x'], ['entity:0:alicia']]);
    await store.destroy(m, [erasure('alice')]);
    expect(await slots(m, 0)).toEqual([null, null, key(first, 2)]);
    expect(await slots(m, 3)).toEqual([key(second, 0), null, key(second, 2)]);
    const { rows } = await db.pool.query<{ seeds: Buffer }>('SELECT seeds FROM mt_content_keys WHERE memory_id = $1 AND key_set = 0', [m]);
    expect(rows[0]!.seeds.subarray(0, 64)).toEqual(Buffer.alloc(64));
    // A later erasure covers the generations before it; several subjects go in one statement.
    await store.destroy(m, [erasure('alice', 1), erasure('bob'), erasure('bob')]);
    expect(await slots(m, 0)).toEqual([null, null, null]);
    expect(await slots(m, 3)).toEqual([null, null, key(second, 2)]);
  });

  it('destroy leaves a tombstone: a repeat, or an earlier generation, writes nothing', async () => {
    const m = memory();
    await write(m, 0, [['entity:0:x'], ['entity:1:x']]);
    await store.destroy(m, [erasure('x', 1)]);
    const { rows } = await db.pool.query(
      'SELECT subject_kind, subject_id, generation, wrapped, destroyed_at IS NOT NULL AS destroyed FROM mt_subject_keys WHERE memory_id = $1',
      [m],
    );
    expect(rows).toEqual([{ subject_kind: 'entity', subject_id: 'x', generation: 1, wrapped: null, destroyed: true }]);
    const versions = await rowVersions(m);
    await store.destroy(m, [erasure('x', 1)]);
    await store.confirmDestroyed(m, [erasure('x', 0), erasure('x', 1)]);
    expect(await rowVersions(m)).toBe(versions);
    await expect(store.destroy(m, [erasure('x', -1)])).rejects.toThrow(/integer from 0/);
    await store.destroy(m, []);
  });

  it('concurrent destroys of subjects of one key set both take effect', async () => {
    const m = memory();
    const boxes = Array.from({ length: 40 }, (_, i) => [`entity:0:e${i}`]);
    await write(m, 0, boxes);
    const other = createPool(db.url);
    try {
      const second = new PostgresSubjectKeyStore(other, masterKey);
      await Promise.all(boxes.map((_, i) => (i % 2 === 0 ? store : second).destroy(m, [erasure(`e${i}`)])));
      expect((await slots(m, 0)).every((k) => k === null)).toBe(true);
    } finally {
      await other.end();
    }
  });

  it('a key set left at the same id by a deleted stream of the memory is replaced', async () => {
    const m = memory();
    await write(m, 0, [['entity:0:old']]);
    const keys = await write(m, 0, [['entity:0:new'], ['entity:0:newer']]);
    expect(await slots(m, 0)).toEqual([key(keys, 0), key(keys, 1)]);
  });

  it('keys of the first format read as they were stored, until destroyed with their subject', async () => {
    const m = memory();
    const ref = (id: string, generation = 0): KeyRef => ({ kind: 'entity', id, generation });
    const legacy = await writeLegacyKeys(db.pool, masterKey, m, [ref('a'), ref('a', 1), ref('b')]);
    const aad = Buffer.from(m);
    const sealed = sealLegacyContent([legacy.get('entity:0:a')!, legacy.get('entity:0:b')!], aad, { text: 'old' });
    const read = await store.legacyKeys(m, [ref('a'), ref('b'), ref('missing')]);
    expect(openLegacyContent([read.get('entity:0:a')!, read.get('entity:0:b')!], aad, sealed)).toEqual({ text: 'old' });
    expect(read.get('entity:0:missing')).toBeNull();

    await store.destroy(m, [erasure('a')]);
    const after = await store.legacyKeys(m, [ref('a'), ref('a', 1), ref('b')]);
    expect([after.get('entity:0:a'), after.get('entity:1:a'), after.get('entity:0:b')]).toEqual([
      null,
      legacy.get('entity:1:a'),
      legacy.get('entity:0:b'),
    ]);
    // A later generation destroyed withholds every earlier key of the subject.
    await store.destroy(m, [erasure('b', 3)]);
    expect((await store.legacyKeys(m, [ref('b')])).get('entity:0:b')).toBeNull();

    await expect(new PostgresSubjectKeyStore(db.pool, randomBytes(32)).legacyKeys(m, [ref('a', 1)])).rejects.toThrow(
      `subject key entity:1:a of memory ${m} does not unwrap: wrong master key (MEMOTRACE_MASTER_KEY) or a damaged key row`,
    );
  });

  it('deleteMemoryKeysIn removes the memory’s key sets, keys and tombstones, and no other memory’s', async () => {
    const m = memory();
    const kept = memory();
    await write(m, 0, [['entity:0:a']]);
    await writeLegacyKeys(db.pool, masterKey, m, [{ kind: 'entity', id: 'old', generation: 0 }]);
    await store.destroy(m, [erasure('a')]);
    const keptKeys = await write(kept, 0, [['entity:0:a']]);
    await deleteMemoryKeysIn(db.pool, m);
    const { rows } = await db.pool.query(
      `SELECT (SELECT count(*) FROM mt_content_keys WHERE memory_id = $1)::int AS sets,
              (SELECT count(*) FROM mt_subject_keys WHERE memory_id = $1)::int AS keys`,
      [m],
    );
    expect(rows[0]).toEqual({ sets: 0, keys: 0 });
    expect(await slots(kept, 0)).toEqual([key(keptKeys, 0)]);
  });

  it('CachingKeyStore over PostgreSQL reads a key set once, and confirms an erasure it destroyed with no statement', async () => {
    const m = memory();
    const keys = await write(m, 0, [['entity:0:a'], ['entity:0:b']]);
    const counted = counting(db.pool);
    const caching = new CachingKeyStore(new PostgresSubjectKeyStore(counted.pool, masterKey));
    await caching.keySets(m, [0]);
    await caching.keySets(m, [0]);
    expect(counted.statements).toEqual(['SELECT']);
    await caching.destroy(m, [erasure('a')]);
    await caching.confirmDestroyed(m, [erasure('a')]);
    const set = (await caching.keySets(m, [0])).get(0)!;
    expect([set.key(0), set.key(1)]).toEqual([null, key(keys, 1)]);
    expect(counted.statements).toEqual(['SELECT', 'WITH', 'SELECT']);
  });
});

describe('databaseMasterKey', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
    await migrate(db.pool, subjectKeyMigrations);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('concurrent first callers on two pools get one and the same 32-byte key, and it stays', async () => {
    const other = createPool(db.url);
    try {
      const keys = await Promise.all([databaseMasterKey(db.pool), databaseMasterKey(other), databaseMasterKey(db.pool), databaseMasterKey(other)]);
      expect(keys[0]).toHaveLength(32);
      for (const key of keys) expect(key).toEqual(keys[0]);
      expect(await databaseMasterKey(db.pool)).toEqual(keys[0]);
      const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM mt_master_key');
      expect(rows[0].n).toBe(1);
    } finally {
      await other.end();
    }
  });
});
