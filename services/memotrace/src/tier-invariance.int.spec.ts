import { PostgresLogStore } from '@memotrace/log-store';
import { memoryStreamId, toNewRecords } from '@memotrace/memory-log';
import { RECORD_TIMES, VALID_TIMES, historyArb, runHistory } from '@memotrace/domain/testing/histories';
import fc from 'fast-check';
import pg from 'pg';
import { type TestService, startTestService } from './testing/test-service';

/**
 * Tier invariance (SPEC 5.4): the random histories of the conformance suite, imported over HTTP, then
 * a random tier assignment of their facts, events and mentions. Every facts, history, audit and check
 * answer, by projection and by replay, is the answer before the assignment but for `tier`, which says
 * exactly the assignment; a search over both tiers answers the same items, and a search of the hot tier
 * returns no cold item and every hot item the search over both returns.
 */
let t: TestService;
let db: pg.Pool;
let store: PostgresLogStore;
let memories = 0;
beforeAll(async () => {
  t = await startTestService({ consolidateIntervalMs: 0 });
  db = new pg.Pool({ connectionString: t.service.databaseUrl, max: 2 });
  store = new PostgresLogStore(db, { pollIntervalMs: 50 });
});
afterAll(async () => {
  await db.end();
  await t.stop();
});

const CUTS = [
  { validAt: '*', recordedAt: RECORD_TIMES[9]! },
  { validAt: VALID_TIMES[4]!, recordedAt: RECORD_TIMES[9]! },
  { validAt: VALID_TIMES[3]!, recordedAt: RECORD_TIMES[5]! },
];

const withoutTier = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (key, v: unknown) => (key === 'tier' || key === 'salience' || key === 'cut' ? undefined : v)));

async function get(path: string): Promise<any> {
  const answer = await t.get(path);
  expect(answer.status).toBe(200);
  return answer.body;
}

/** Every fact answer of the memory, by projection and by replay. */
async function factAnswers(memoryId: string, factIds: readonly string[], claims: readonly object[]): Promise<unknown[]> {
  const base = `/v1/memories/${memoryId}`;
  const answers: unknown[] = [];
  for (const consistency of ['projection', 'replay']) {
    for (const { validAt, recordedAt } of CUTS) {
      answers.push(await get(`${base}/facts?validAt=${validAt}&recordedAt=${recordedAt}&consistency=${consistency}`));
      const check = await t.post(`${base}/check?consistency=${consistency}`, { claims, validAt, recordedAt });
      expect(check.status).toBe(200);
      answers.push(check.body);
    }
  }
  for (const factId of factIds) {
    answers.push(await get(`${base}/facts/${factId}/history`));
    answers.push(await get(`${base}/facts/${factId}/audit`));
  }
  return answers;
}

/** The tier each fact version of the answers says, by factId. */
function tiersSaid(answers: unknown[]): Map<string, Set<string>> {
  const said = new Map<string, Set<string>>();
  JSON.stringify(answers, (_key, v: any) => {
    if (v && typeof v === 'object' && typeof v.factId === 'string' && typeof v.tier === 'string') {
      said.set(v.factId, (said.get(v.factId) ?? new Set()).add(v.tier));
    }
    return v;
  });
  return said;
}

it('answers every fact read as before but for tier, and search by tier', async () => {
  await fc.assert(
    fc.asyncProperty(historyArb, fc.infiniteStream(fc.boolean()), async (batches, coins) => {
      const memoryId = `tiers-${++memories}`;
      const run = runHistory(batches, { memoryId });
      // The log as decided (histories hold commands the edge would refuse, e.g. a merge of an entity into itself).
      await store.append(memoryStreamId(memoryId), toNewRecords(memoryId, run.log), { expectedRevision: 'no_stream' });
      expect((await t.get(`/v1/memories/${memoryId}/facts?minPosition=${run.log.length}`)).status).toBe(200);

      const factIds = [...run.state.facts.keys()];
      const claims = [...run.state.facts.values()].slice(0, 20).map((f) => ({ src: f.src, rel: f.rel, dst: f.dst ?? { literal: 'x' } }));
      const before = await factAnswers(memoryId, factIds, claims);
      const query = { query: 'Name 0 Name 1 works_at knows lives_in', k: 100 };
      const searchedBefore = await t.post(`/v1/memories/${memoryId}/search`, { ...query, tiers: ['hot', 'cold'] });

      const coin = coins[Symbol.iterator]();
      const items = [
        ...factIds.map((id) => ['fact', id]),
        ...[...run.state.events.keys()].map((id) => ['event', id]),
        ...[...run.state.mentions.keys()].map((id) => ['mention', id]),
      ];
      const cold = items.filter(() => coin.next().value === true);
      await db.query(
        `INSERT INTO mt_item_tiers (memory_id, kind, item_id, tier, cooled_at)
         SELECT $1, k.kind, k.id, 'cold', now() FROM unnest($2::text[], $3::text[]) AS k(kind, id)
         ON CONFLICT (memory_id, kind, item_id) DO UPDATE SET tier = 'cold', cooled_at = now()`,
        [memoryId, cold.map(([kind]) => kind), cold.map(([, id]) => id)],
      );
      const coldFacts = new Set(cold.filter(([kind]) => kind === 'fact').map(([, id]) => id));

      const after = await factAnswers(memoryId, factIds, claims);
      expect(withoutTier(after)).toEqual(withoutTier(before));
      for (const [factId, tiers] of tiersSaid(after)) expect([...tiers]).toEqual([coldFacts.has(factId) ? 'cold' : 'hot']);
      for (const [, tiers] of tiersSaid(before)) expect([...tiers]).toEqual(['hot']);

      // The hot tier first: the search over both warms what it returns.
      const hot = await t.post(`/v1/memories/${memoryId}/search`, query);
      const both = await t.post(`/v1/memories/${memoryId}/search`, { ...query, tiers: ['hot', 'cold'] });
      expect(withoutTier(both.body)).toEqual(withoutTier(searchedBefore.body));
      const coldKeys = new Set(cold.map(([kind, id]) => `${kind}:${id}`));
      const key = (i: any) => `${i.kind}:${i.id}`;
      for (const item of hot.body.items) expect(coldKeys.has(key(item))).toBe(false);
      const hotKeys = new Set(hot.body.items.map(key));
      for (const item of both.body.items) if (!coldKeys.has(key(item))) expect(hotKeys.has(key(item))).toBe(true);
      for (const item of both.body.items) if (item.kind !== 'episode') expect(item.tier).toBe(coldKeys.has(key(item)) ? 'cold' : 'hot');
    }),
    { numRuns: 15 },
  );
});
