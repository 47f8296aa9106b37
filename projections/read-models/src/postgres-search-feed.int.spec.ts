import type { MemoryRecord, SearchDelta } from '@memotrace/domain';
import type { Projector } from '@memotrace/projection';
import { PostgresSearchFeed } from './postgres-search-feed';
import { CANARY, ERASURE_STORY, at } from './testing/erasure-story';
import { type Harness, MemoryWriter, openHarness } from './testing/pg-harness';

/**
 * The search corpus's feed after erasures (SPEC §5.2): erased items come with their structure and
 * null content, never the erased text; the erasure mark tells a corpus that content it loaded is
 * gone, and which items.
 */
let harness: Harness;
let projector: Projector;
let feed: PostgresSearchFeed;

beforeAll(async () => {
  harness = await openHarness();
  projector = await harness.startProjector({ batchSize: 50 });
  feed = new PostgresSearchFeed(harness.db.pool, 3);
});

afterAll(async () => {
  await harness?.close();
});

async function everything(memoryId: string): Promise<SearchDelta> {
  const all: SearchDelta = { facts: [], events: [], episodes: [], mentions: [], entities: [], merges: [] };
  for await (const chunk of feed.allItems(memoryId))
    for (const key of Object.keys(all) as (keyof SearchDelta)[]) all[key].push(...(chunk[key] as never[]));
  return all;
}

const erasuresOf = (log: readonly MemoryRecord[]) =>
  log.flatMap((r) =>
    r.type === 'SubjectErased'
      ? [{ subject: r.data.subject, entities: r.data.entities, facts: r.data.facts, events: r.data.events, mentions: r.data.mentions }]
      : [],
  );

describe('PostgresSearchFeed after erasures', () => {
  it('yields erased items with null content and no erased text; the erasure mark moves with each erasure', async () => {
    const m = new MemoryWriter(harness, 'feed');
    const [first, second, ...rest] = ERASURE_STORY;
    await m.when(...first!);
    const before = (await m.when(...second!))!;
    expect(await projector.waitForPosition(before, 10_000)).toBe(true);
    expect(await feed.erasureMark('feed')).toBe(0);
    expect(JSON.stringify(await everything('feed')).toLowerCase()).toContain(CANARY); // the canaries were there
    const watermark = { at: at('TUE', '09:00'), seen: 0 };

    let position = before;
    for (const step of rest.slice(0, -1)) position = (await m.when(...step)) ?? position;
    expect(await projector.waitForPosition(position, 10_000)).toBe(true);
    const { rows } = await harness.db.pool.query<{ position: string }>(
      `SELECT position FROM mt_events WHERE type = 'SubjectErased' ORDER BY position`,
    );
    const positions = rows.map((r) => Number(r.position));
    expect(positions).toHaveLength(4);
    expect(await feed.erasureMark('feed')).toBe(positions.at(-1));
    // A registration that names the erased entity again moves the mark too: deltas do not bring the new name.
    position = (await m.when(...rest.at(-1)!))!;
    expect(await projector.waitForPosition(position, 10_000)).toBe(true);
    const { rows: named } = await harness.db.pool.query<{ position: string }>(
      `SELECT max(position) AS position FROM mt_events WHERE type = 'EntityRegistered' AND data->>'entityId' = 'alice'`,
    );
    expect(Number(named[0]!.position)).toBeGreaterThan(positions.at(-1)!);
    expect(await feed.erasureMark('feed')).toBe(Number(named[0]!.position));

    const all = await everything('feed');
    expect(JSON.stringify(all).toLowerCase()).not.toContain(CANARY);
    expect(JSON.stringify(await feed.itemsSince('feed', watermark)).toLowerCase()).not.toContain(CANARY);
    // Structure stays: the erased items are there, their content null; what was written after is new content.
    expect(all.mentions.map((x) => [x.mentionId, x.text, x.speaker])).toEqual([
      ['m1', null, null],
      ['m2', null, null],
      ['m3', 'unrelated', 'Bob'],
      ['m4', null, null],
    ]);
    expect(all.events.filter((e) => e.eventId === 'ev-join').map((e) => [e.versionNo, e.summary])).toEqual([
      [1, null],
      [2, null],
      [3, 'Alice Again rejoined'],
    ]);
    expect(all.facts.filter((f) => f.factId === 'f-email').map((f) => f.dst)).toEqual([
      null,
      null,
      null,
      { literal: 'new@example.org', datatype: 'string' },
    ]);
    expect(all.facts.filter((f) => f.factId === 'f-works').map((f) => f.dst)).toEqual(['acme']);
    expect(all.entities.map((e) => [e.entityId, e.name]).sort()).toEqual([
      ['acme', 'Acme'],
      ['alice', 'Alice Again'],
      ['ally', 'Ally'],
      ['bob', 'Bob'],
    ]);

    // The erasures since a mark say which items lost their content.
    const log = await harness.log('feed');
    const since = await feed.erasuresSince('feed');
    expect(since.map(({ position: p, recordedAt: _, ...items }) => [p, items])).toEqual(erasuresOf(log).map((items, i) => [positions[i], items]));
    expect(since.map((e) => e.recordedAt)).toEqual(log.filter((r) => r.type === 'SubjectErased').map((r) => r.meta.recordedAt));
    expect((await feed.erasuresSince('feed', positions[1]!)).map((e) => e.position)).toEqual(positions.slice(2));
    expect(await feed.erasuresSince('feed', positions.at(-1)!)).toEqual([]);
    // Per memory: another memory's erasures do not move it.
    expect(await feed.erasureMark('no-such-memory')).toBe(0);
    expect(await feed.erasuresSince('no-such-memory')).toEqual([]);
  }, 60_000);
});

describe('PostgresSearchFeed change mark', () => {
  it("moves with the read models' checkpoints (each partition's), never with another projection's", async () => {
    const { pool } = harness.db;
    const checkpoint = (projection: string, position: number) =>
      pool.query('INSERT INTO rm_checkpoints (projection, position) VALUES ($1, $2) ON CONFLICT (projection) DO UPDATE SET position = $2', [
        projection,
        position,
      ]);
    const before = await feed.changeMark();
    await checkpoint('search-index', 1_000_000);
    await checkpoint('some-other-projection', 2_000_000);
    expect(await feed.changeMark()).toBe(before);
    await checkpoint('read-models@test-partition', 7);
    expect(await feed.changeMark()).toBe(before + 7);
    await pool.query("DELETE FROM rm_checkpoints WHERE projection IN ('search-index', 'some-other-projection', 'read-models@test-partition')");
  });
});
