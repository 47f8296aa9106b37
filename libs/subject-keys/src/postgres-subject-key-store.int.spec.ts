import { randomBytes } from 'node:crypto';
import { type TestDatabase, createPool, createTestDatabase, migrate } from '@memotrace/postgres';
import type pg from 'pg';
import { CachingKeyStore } from './caching-key-store';
import { openContent, sealContent } from './content-seal';
import { databaseMasterKey } from './master-key';
import { subjectKeyMigrations } from './migrations';
import { PostgresSubjectKeyStore } from './postgres-subject-key-store';
import { type KeyRef, type SubjectKind, keyRefString } from './subject-key-store';

jest.setTimeout(60_000);

const ref = (id: string, generation = 0, kind: SubjectKind = 'entity'): KeyRef => ({ kind, id, generation });
const memory = () => `mem-${randomBytes(4).toString('hex')}`;

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

  beforeAll(async () => {
    db = await createTestDatabase();
    expect(await migrate(db.pool, subjectKeyMigrations)).toEqual(['SubjectKeysSchema1796100000000', 'SubjectKeyTombstones1796400000000']);
    store = new PostgresSubjectKeyStore(db.pool, masterKey);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('creates 32-byte keys once, and reads the same material back (ids with ":" and quotes too)', async () => {
    const m = memory();
    const refs = [ref('alice'), ref('f:1', 0, 'fact'), ref('a "quoted", {braced} id', 2, 'mention'), ref('doc/1', 0, 'doc')];
    const created = await store.keys(m, refs, { create: true });
    expect([...created.keys()].sort()).toEqual(refs.map(keyRefString).sort());
    for (const key of created.values()) expect(key).toHaveLength(32);
    expect(new Set([...created.values()].map((key) => key!.toString('hex'))).size).toBe(refs.length);

    const again = await store.keys(m, refs, { create: true });
    const read = await new PostgresSubjectKeyStore(db.pool, masterKey).keys(m, [...refs].reverse(), { create: false });
    for (const refString of created.keys()) {
      expect(again.get(refString)).toEqual(created.get(refString));
      expect(read.get(refString)).toEqual(created.get(refString));
    }
  });

  it('without create, a missing key is null and nothing is written', async () => {
    const m = memory();
    const found = await store.keys(m, [ref('nobody')], { create: false });
    expect(found).toEqual(new Map([['entity:0:nobody', null]]));
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM mt_subject_keys WHERE memory_id = $1', [m]);
    expect(rows[0].n).toBe(0);
  });

  it('a batch of 1,500 new refs takes one INSERT with create (its own keys are not read back), one SELECT without', async () => {
    const m = memory();
    const refs = Array.from({ length: 1_500 }, (_, i) => ref(`e${i}`, i % 3));
    const counted = counting(db.pool);
    const counter = new PostgresSubjectKeyStore(counted.pool, masterKey);
    const created = await counter.keys(m, refs, { create: true });
    expect(counted.statements).toEqual(['INSERT']);
    expect([...created.values()].filter((key) => key?.length === 32)).toHaveLength(1_500);
    const read = await counter.keys(m, refs, { create: false });
    expect(counted.statements).toEqual(['INSERT', 'SELECT']);
    expect(read).toEqual(created);
    // Existing keys on a create: the INSERT inserts none, the SELECT reads them.
    expect(await counter.keys(m, refs, { create: true })).toEqual(created);
    expect(counted.statements).toEqual(['INSERT', 'SELECT', 'INSERT', 'SELECT']);
  });

  it('proposes the keys it creates while the INSERT runs; the answer keeps those it inserted, the stored key or null for the rest', async () => {
    const m = memory();
    const existing = await store.keys(m, [ref('old')], { create: true });
    await store.destroy(m, { kind: 'entity', id: 'gone' }, 0);
    const proposals: ReadonlyMap<string, Buffer>[] = [];
    const answer = await store.keys(m, [ref('old'), ref('new'), ref('gone')], { create: true, onProposed: (proposed) => proposals.push(proposed) });
    expect(proposals).toHaveLength(1);
    expect([...proposals[0]!.keys()].sort()).toEqual(['entity:0:gone', 'entity:0:new', 'entity:0:old']);
    expect(answer.get('entity:0:new')).toBe(proposals[0]!.get('entity:0:new'));
    expect(answer.get('entity:0:old')).toEqual(existing.get('entity:0:old'));
    expect(answer.get('entity:0:old')).not.toEqual(proposals[0]!.get('entity:0:old'));
    expect(answer.get('entity:0:gone')).toBeNull();
  });

  it('concurrent creates from two pools for the same refs agree on every key', async () => {
    const other = createPool(db.url);
    try {
      const second = new PostgresSubjectKeyStore(other, masterKey);
      for (let round = 0; round < 5; round++) {
        const m = memory();
        const refs = Array.from({ length: 300 }, (_, i) => ref(`s${i}`));
        const [one, two] = await Promise.all([store.keys(m, refs, { create: true }), second.keys(m, [...refs].reverse(), { create: true })]);
        expect(one.size).toBe(300);
        for (const [refString, key] of one) {
          expect(key).toHaveLength(32);
          expect(two.get(refString)).toEqual(key);
        }
      }
    } finally {
      await other.end();
    }
  });

  it('destroy: the generations through it read null, stay null on create, and the next generation gets a new key', async () => {
    const m = memory();
    const created = await store.keys(m, [ref('alice', 0), ref('alice', 1), ref('alice', 2), ref('bob', 1)], { create: true });
    await store.destroy(m, { kind: 'entity', id: 'alice' }, 1);

    const after = await store.keys(m, [ref('alice', 0), ref('alice', 1), ref('alice', 2), ref('bob', 1)], { create: true });
    expect(after.get('entity:0:alice')).toBeNull();
    expect(after.get('entity:1:alice')).toBeNull();
    expect(after.get('entity:2:alice')).toEqual(created.get('entity:2:alice'));
    expect(after.get('entity:1:bob')).toEqual(created.get('entity:1:bob'));

    // a generation destroyed before it was ever created is never created
    await store.destroy(m, { kind: 'fact', id: 'f' }, 4);
    const fact = await store.keys(m, [ref('f', 3, 'fact'), ref('f', 4, 'fact'), ref('f', 5, 'fact')], { create: true });
    expect(fact.get('fact:3:f')).toBeNull();
    expect(fact.get('fact:4:f')).toBeNull();
    expect(fact.get('fact:5:f')).toHaveLength(32);

    const { rows } = await db.pool.query(
      'SELECT subject_kind, subject_id, generation, wrapped IS NULL AS gone, destroyed_at IS NOT NULL AS destroyed FROM mt_subject_keys ' +
        'WHERE memory_id = $1 ORDER BY subject_kind, subject_id, generation',
      [m],
    );
    expect(rows.map((row) => `${row.subject_kind}:${row.generation}:${row.subject_id} ${row.gone} ${row.destroyed}`)).toEqual([
      'entity:0:alice true true',
      'entity:1:alice true true',
      'entity:2:alice false false',
      'entity:1:bob false false',
      'fact:4:f true true',
      'fact:5:f false false',
    ]);
  });

  it('destroy is idempotent and keeps the time of the first destruction', async () => {
    const m = memory();
    await store.keys(m, [ref('x', 0)], { create: true });
    await store.destroy(m, { kind: 'entity', id: 'x' }, 0);
    const first = await db.pool.query('SELECT destroyed_at FROM mt_subject_keys WHERE memory_id = $1', [m]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await store.destroy(m, { kind: 'entity', id: 'x' }, 0);
    await store.destroy(m, { kind: 'entity', id: 'x' }, 0);
    const second = await db.pool.query('SELECT destroyed_at FROM mt_subject_keys WHERE memory_id = $1', [m]);
    expect(second.rows).toHaveLength(1);
    expect(second.rows[0].destroyed_at).toEqual(first.rows[0].destroyed_at);
    expect((await store.keys(m, [ref('x', 0)], { create: true })).get('entity:0:x')).toBeNull();
    await expect(store.destroy(m, { kind: 'entity', id: 'x' }, -1)).rejects.toThrow(/integer from 0/);
  });

  it('the key that sealed content opens it until destroyed, then the store gives out null', async () => {
    const m = memory();
    const key = (await store.keys(m, [ref('alice')], { create: true })).get('entity:0:alice')!;
    const sealed = sealContent([key], m, { name: 'Alice' });
    expect(openContent([(await store.keys(m, [ref('alice')], { create: false })).get('entity:0:alice')!], m, sealed)).toEqual({ name: 'Alice' });
    await store.destroy(m, { kind: 'entity', id: 'alice' }, 0);
    expect((await store.keys(m, [ref('alice')], { create: false })).get('entity:0:alice')).toBeNull();
  });

  it('dropMemory removes the memory keys and tombstones, and no other memory', async () => {
    const m = memory();
    const kept = memory();
    await store.keys(m, [ref('a'), ref('b')], { create: true });
    await store.destroy(m, { kind: 'entity', id: 'b' }, 0);
    const keptKeys = await store.keys(kept, [ref('a')], { create: true });
    await store.dropMemory(m);
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM mt_subject_keys WHERE memory_id = $1', [m]);
    expect(rows[0].n).toBe(0);
    expect(await store.keys(kept, [ref('a')], { create: false })).toEqual(keptKeys);
    // without its tombstone, the generation is a new subject key
    expect((await store.keys(m, [ref('b')], { create: true })).get('entity:0:b')).toHaveLength(32);
  });

  it('the table holds the keys wrapped: 60 bytes each, not containing the raw key', async () => {
    const m = memory();
    const created = await store.keys(m, [ref('a'), ref('b'), ref('c')], { create: true });
    const { rows } = await db.pool.query<{ subject_id: string; generation: number; wrapped: Buffer }>(
      "SELECT subject_id, generation, wrapped FROM mt_subject_keys WHERE memory_id = $1 AND subject_kind = 'entity'",
      [m],
    );
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      const key = created.get(keyRefString({ kind: 'entity', id: row.subject_id, generation: row.generation }))!;
      expect(row.wrapped).toHaveLength(60);
      expect(row.wrapped.includes(key)).toBe(false);
      expect(row.wrapped.includes(key.subarray(0, 8))).toBe(false);
    }
  });

  it('a wrong master key, or a wrapped key moved to another row, does not unwrap', async () => {
    const m = memory();
    await store.keys(m, [ref('a'), ref('b')], { create: true });
    const wrong = new PostgresSubjectKeyStore(db.pool, randomBytes(32));
    await expect(wrong.keys(m, [ref('a')], { create: false })).rejects.toThrow(
      `subject key entity:0:a of memory ${m} does not unwrap: wrong master key (MEMOTRACE_MASTER_KEY) or a damaged key row`,
    );
    await db.pool.query(
      "UPDATE mt_subject_keys SET wrapped = (SELECT wrapped FROM mt_subject_keys WHERE memory_id = $1 AND subject_id = 'a') " +
        "WHERE memory_id = $1 AND subject_id = 'b'",
      [m],
    );
    await expect(store.keys(m, [ref('b')], { create: false })).rejects.toThrow(/entity:0:b .* does not unwrap/);
    expect(() => new PostgresSubjectKeyStore(db.pool, randomBytes(16))).toThrow(/master key is 32 bytes, got 16/);
  });

  it('CachingKeyStore over PostgreSQL asks once per ref and forgets on destroy and forget', async () => {
    const m = memory();
    const counted = counting(db.pool);
    const caching = new CachingKeyStore(new PostgresSubjectKeyStore(counted.pool, masterKey));
    const first = await caching.keys(m, [ref('a'), ref('b')], { create: true });
    const second = await caching.keys(m, [ref('a'), ref('b')], { create: true });
    expect(counted.statements).toEqual(['INSERT']);
    expect(second).toEqual(first);

    await caching.destroy(m, { kind: 'entity', id: 'a' }, 0);
    expect((await caching.keys(m, [ref('a'), ref('b')], { create: true })).get('entity:0:a')).toBeNull();
    expect(counted.statements).toEqual(['INSERT', 'WITH', 'INSERT', 'SELECT']);

    // another process destroys b: the cache still answers until told to forget
    await store.destroy(m, { kind: 'entity', id: 'b' }, 0);
    expect((await caching.keys(m, [ref('b')], { create: false })).get('entity:0:b')).toEqual(first.get('entity:0:b'));
    caching.forget(m, { kind: 'entity', id: 'b' }, 0);
    expect((await caching.keys(m, [ref('b')], { create: false })).get('entity:0:b')).toBeNull();
    expect(counted.statements).toHaveLength(5);
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
