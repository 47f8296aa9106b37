import { PAGE, entitiesResponse, errorResponse } from '@memotrace/contracts';
import { type TestService, startTestService } from './testing/test-service';

/**
 * `GET /v1/memories/{memoryId}/entities`: the entities of a cut found by name or alias and type, a page
 * at a time, on the real service; every answer is asked of the read models and of exact replay.
 */
const T0 = '2024-05-06T09:00:00.000Z';
const T1 = '2024-05-07T09:00:00.000Z';
const BEFORE = '2024-05-01T00:00:00.000Z';
const M = 'people';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
  const written = await t.commands(M, [
    { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'Alice', aliases: ['Ally'], types: ['person'], recordedAt: T0 },
    { op: 'UPSERT_ENTITY', name: 'Alice  Smith', types: ['Person'], recordedAt: T0 },
    { op: 'UPSERT_ENTITY', entityId: 'acme', name: 'Acme', types: ['org'], recordedAt: T0 },
    { op: 'UPSERT_ENTITY', entityId: 'bob', name: 'Bob', types: ['person'], recordedAt: T0 },
    { op: 'UPSERT_ENTITY', entityId: 'robert', name: 'Robert', recordedAt: T0 },
    { op: 'UPSERT_ENTITY', entityId: 'pct', name: '100%_sure', recordedAt: T0 },
    // A day later: Bob is known to be Robert, Acme gets an alias.
    { op: 'MERGE_ENTITY', srcId: 'bob', dstId: 'robert', recordedAt: T1 },
    { op: 'UPSERT_ENTITY', entityId: 'acme', name: 'Acme', aliases: ['ACME Corp'], recordedAt: T1 },
  ]);
  expect(written.status).toBe(200);
}, 60_000);
afterAll(() => t?.stop());

/** The answer of both read paths (they must agree), checked against the contract. */
async function list(params: Record<string, string>) {
  const ask = async (consistency: string) => {
    const response = await t.get(`/v1/memories/${M}/entities?${new URLSearchParams({ ...params, consistency })}`);
    expect({ status: response.status, text: response.text }).toMatchObject({ status: 200 });
    return entitiesResponse.parse(response.body);
  };
  const [projection, replay] = [await ask('projection'), await ask('replay')];
  expect(replay.source).toBe('replay');
  // The cut's times default to each request's own time.
  expect({ ...replay, source: 'projection', cut: projection.cut }).toEqual(projection);
  if (params['recordedAt'] !== undefined) expect(replay.cut.recordedAt).toBe(projection.cut.recordedAt);
  return projection;
}
const ids = async (params: Record<string, string>) => (await list(params)).entities.map((e) => e.entityId);
const derivedId = async (name: string) => (await list({ name, recordedAt: T0 })).entities[0]!.entityId;

describe('GET /v1/memories/{memoryId}/entities', () => {
  it('lists the canonical entities of the cut, sorted by entityId, as the entity read shows each', async () => {
    const answer = await list({});
    const smith = await derivedId('Alice Smith');
    expect(smith).toMatch(/^ent_/);
    expect(answer.entities.map((e) => e.entityId)).toEqual(['acme', 'alice', smith, 'pct', 'robert'].sort());
    expect(answer.next).toBeNull();
    expect(answer.cut.validAt).toBe(answer.cut.recordedAt);
    for (const entity of answer.entities) expect((await t.get(`/v1/memories/${M}/entities/${entity.entityId}`)).body).toEqual(entity);
    // Before the merge Bob is his own entity.
    expect(await ids({ recordedAt: T0 })).toEqual(['acme', 'alice', 'bob', smith, 'pct', 'robert'].sort());
    expect(await ids({ recordedAt: BEFORE })).toEqual([]);
  });

  it('finds an entity by name or alias, case-insensitively and with whitespace normalised', async () => {
    const smith = await derivedId('Alice Smith');
    expect(await ids({ name: 'Alice' })).toEqual(['alice']);
    expect(await ids({ name: '  aLiCe ' })).toEqual(['alice']);
    expect(await ids({ name: 'ALLY' })).toEqual(['alice']);
    expect(await ids({ name: 'alice smith' })).toEqual([smith]);
    expect(await ids({ name: 'Alice  Smith' })).toEqual([smith]);
    expect(await ids({ name: 'Al' })).toEqual([]);
    expect(await ids({ name: 'Nobody' })).toEqual([]);
  });

  it('with match=prefix, finds the names and aliases that start with it (LIKE wildcards are plain characters)', async () => {
    const smith = await derivedId('Alice Smith');
    expect(await ids({ name: 'al', match: 'prefix' })).toEqual(['alice', smith].sort());
    expect(await ids({ name: 'alice s', match: 'prefix' })).toEqual([smith]);
    expect(await ids({ name: 'acme c', match: 'prefix' })).toEqual(['acme']);
    expect(await ids({ name: '100%', match: 'prefix' })).toEqual(['pct']);
    expect(await ids({ name: '1_0', match: 'prefix' })).toEqual([]);
    expect(await ids({ name: '%', match: 'prefix' })).toEqual([]);
  });

  it('resolves merges and aliases as of the cut: no later coreference leaks into the past', async () => {
    expect(await ids({ name: 'Bob' })).toEqual(['robert']);
    expect((await list({ name: 'bob' })).entities[0]).toMatchObject({ names: ['Robert', 'Bob'], aliases: ['Bob'], types: ['person'] });
    expect(await ids({ name: 'Bob', recordedAt: T0 })).toEqual(['bob']);
    expect(await ids({ name: 'ACME Corp' })).toEqual(['acme']);
    expect(await ids({ name: 'ACME Corp', recordedAt: T0 })).toEqual([]);
  });

  it('filters by type (case-insensitive), alone or with a name', async () => {
    const smith = await derivedId('Alice Smith');
    expect(await ids({ type: 'person' })).toEqual(['alice', smith, 'robert'].sort());
    expect(await ids({ type: 'PERSON', recordedAt: T0 })).toEqual(['alice', 'bob', smith].sort());
    expect(await ids({ type: 'person', name: 'al', match: 'prefix' })).toEqual(['alice', smith].sort());
    expect(await ids({ type: 'org', name: 'alice' })).toEqual([]);
  });

  it('pages by entityId: limit, then next as after, in one cut', async () => {
    const all = await ids({});
    const seen: string[] = [];
    let page = await list({ limit: '2' });
    for (;;) {
      expect(page.entities.length).toBeLessThanOrEqual(2);
      seen.push(...page.entities.map((e) => e.entityId));
      if (page.next === null) break;
      expect(page.next).toBe(seen[seen.length - 1]);
      page = await list({ limit: '2', after: page.next, recordedAt: page.cut.recordedAt });
    }
    expect(seen).toEqual(all);
    expect(await ids({ after: 'alice', limit: '1' })).toEqual([all[all.indexOf('alice') + 1]!]);
    expect((await list({ limit: String(all.length) })).next).toBeNull();
  });

  it('refuses bad parameters with 400, and an unknown memory with 404', async () => {
    for (const query of ['limit=0', `limit=${PAGE.max + 1}`, 'limit=two', 'match=fuzzy', 'name=%20%20', 'colour=red', 'recordedAt=yesterday']) {
      const response = await t.get(`/v1/memories/${M}/entities?${query}`);
      expect([query, response.status, errorResponse.parse(response.body).error.code]).toEqual([query, 400, 'INVALID_REQUEST']);
    }
    const response = await t.get('/v1/memories/nobody-here/entities?name=Alice');
    expect([response.status, response.body.error.code]).toEqual([404, 'UNKNOWN_MEMORY']);
  });
});
