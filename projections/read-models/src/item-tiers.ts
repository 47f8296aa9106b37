import { type ErasedItems, type Instant, type Tier, type TieredKind, tierKey } from '@memotrace/domain';
import type { Pool, PoolClient } from 'pg';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { epochMs, instantOrNullOfEpochMs, pgInstant } from './instants';

/**
 * Retrieval statistics and tiers (SPEC §5.4): not belief, so never in the log and never rebuilt from it.
 * One row per item a search returned or consolidation cooled; an item without a row is hot and was never
 * returned. The table sits beside the read models (same database) but is no read model: a rebuild leaves
 * it, export does not carry it, a memory's deletion and an erasure of the item take its row.
 */
export class ItemTiersSchema1796700000000 implements MigrationInterface {
  readonly name = 'ItemTiersSchema1796700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE mt_item_tiers (
        memory_id text COLLATE "C" NOT NULL,
        kind text NOT NULL CHECK (kind IN ('fact', 'event', 'mention')),
        item_id text COLLATE "C" NOT NULL,
        returned integer NOT NULL DEFAULT 0,
        last_returned_at timestamptz NULL,
        tier text NOT NULL DEFAULT 'hot' CHECK (tier IN ('hot', 'cold')),
        cooled_at timestamptz NULL,
        seen_returned integer NOT NULL DEFAULT 0,
        seen_last_returned_at timestamptz NULL,
        PRIMARY KEY (memory_id, kind, item_id)
      )`);
    // A search asks which of its candidates are cold: the memory's cold rows are few next to its items.
    await queryRunner.query(`CREATE INDEX mt_item_tiers_cold ON mt_item_tiers (memory_id, kind, item_id) WHERE tier = 'cold'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE mt_item_tiers');
  }
}

export interface ItemKey {
  kind: TieredKind;
  id: string;
}

export interface ItemStats extends ItemKey {
  returned: number;
  lastReturnedAt: Instant | null;
  tier: Tier;
  cooledAt: Instant | null;
  /** The retrieval statistics as the memory's last consolidation saw them: what a search's salience reads. */
  seen: { returned: number; lastReturnedAt: Instant | null };
}

type Queryable = Pick<PoolClient, 'query'>;

interface StatsRow {
  kind: TieredKind;
  item_id: string;
  returned: number;
  last_returned_at: string | null;
  tier: Tier;
  cooled_at: string | null;
  seen_returned: number;
  seen_last_returned_at: string | null;
}

const STATS_COLUMNS =
  `kind, item_id, returned, ${epochMs('last_returned_at')} AS last_returned_at, tier, ${epochMs('cooled_at')} AS cooled_at, ` +
  `seen_returned, ${epochMs('seen_last_returned_at')} AS seen_last_returned_at`;

function statsOf(row: StatsRow): ItemStats {
  return {
    kind: row.kind,
    id: row.item_id,
    returned: Number(row.returned),
    lastReturnedAt: instantOrNullOfEpochMs(row.last_returned_at),
    tier: row.tier,
    cooledAt: instantOrNullOfEpochMs(row.cooled_at),
    seen: { returned: Number(row.seen_returned), lastReturnedAt: instantOrNullOfEpochMs(row.seen_last_returned_at) },
  };
}

/** The store of retrieval statistics and tiers. */
export class ItemTiers {
  constructor(private readonly pool: Pool) {}

  /** The stats of the items asked for that have a row, by `itemKey`. */
  async stats(memoryId: string, items: readonly ItemKey[]): Promise<Map<string, ItemStats>> {
    const found = new Map<string, ItemStats>();
    if (items.length === 0) return found;
    const { rows } = await this.pool.query<StatsRow>(
      `SELECT ${STATS_COLUMNS} FROM mt_item_tiers t
        WHERE t.memory_id = $1 AND (t.kind, t.item_id) IN (SELECT * FROM unnest($2::text[], $3::text[]))`,
      [memoryId, items.map((i) => i.kind), items.map((i) => i.id)],
    );
    for (const row of rows) found.set(tierKey(row.kind, row.item_id), statsOf(row));
    return found;
  }

  /** Every row of the memory (consolidation's walk). */
  async all(memoryId: string): Promise<Map<string, ItemStats>> {
    const { rows } = await this.pool.query<StatsRow>(`SELECT ${STATS_COLUMNS} FROM mt_item_tiers WHERE memory_id = $1`, [memoryId]);
    return new Map(rows.map((row) => [tierKey(row.kind, row.item_id), statsOf(row)]));
  }

  /** The ids of the memory's cold items of `kind` among `ids`. */
  async cold(memoryId: string, kind: TieredKind, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const { rows } = await this.pool.query<{ item_id: string }>(
      `SELECT item_id FROM mt_item_tiers WHERE memory_id = $1 AND kind = $2 AND tier = 'cold' AND item_id = ANY($3::text[])`,
      [memoryId, kind, ids],
    );
    return new Set(rows.map((row) => row.item_id));
  }

  /** A search returned these items at `at`: each counts one more retrieval, and a cold one warms. */
  async returned(memoryId: string, items: readonly ItemKey[], at: Instant): Promise<void> {
    if (items.length === 0) return;
    await this.pool.query(
      `INSERT INTO mt_item_tiers (memory_id, kind, item_id, returned, last_returned_at)
       SELECT $1, k.kind, k.id, 1, $4::timestamptz FROM unnest($2::text[], $3::text[]) AS k(kind, id)
       ON CONFLICT (memory_id, kind, item_id) DO UPDATE
         SET returned = mt_item_tiers.returned + 1,
             last_returned_at = GREATEST(mt_item_tiers.last_returned_at, EXCLUDED.last_returned_at),
             tier = 'hot', cooled_at = NULL`,
      [memoryId, items.map((i) => i.kind), items.map((i) => i.id), pgInstant(at)],
    );
  }

  /** Moves items to `tier` at `at` (cooling or warming): what consolidation decided. */
  async setTier(memoryId: string, items: readonly ItemKey[], tier: Tier, at: Instant): Promise<void> {
    if (items.length === 0) return;
    await this.pool.query(
      `INSERT INTO mt_item_tiers (memory_id, kind, item_id, tier, cooled_at)
       SELECT $1, k.kind, k.id, $4, CASE WHEN $4 = 'cold' THEN $5::timestamptz END FROM unnest($2::text[], $3::text[]) AS k(kind, id)
       ON CONFLICT (memory_id, kind, item_id) DO UPDATE SET tier = EXCLUDED.tier, cooled_at = EXCLUDED.cooled_at`,
      [memoryId, items.map((i) => i.kind), items.map((i) => i.id), tier, pgInstant(at)],
    );
  }

  /**
   * What the memory's searches read of the retrieval statistics from now on (a consolidation's): between
   * two runs every search of a cut answers the same salience, however often the memory is searched.
   */
  async snapshot(memoryId: string): Promise<void> {
    await this.pool.query(
      `UPDATE mt_item_tiers SET seen_returned = returned, seen_last_returned_at = last_returned_at
        WHERE memory_id = $1 AND (seen_returned <> returned OR seen_last_returned_at IS DISTINCT FROM last_returned_at)`,
      [memoryId],
    );
  }

  /** Erasure reaches the statistics (SPEC 5.2, 5.4): the rows of the items whose content an erasure took go. */
  forgetErased(memoryId: string, erased: Pick<ErasedItems, 'facts' | 'events' | 'mentions'>): Promise<void> {
    const of = (kind: TieredKind, ids: readonly string[]) => ids.map((id) => ({ kind, id }));
    return this.forget(memoryId, [...of('fact', erased.facts), ...of('event', erased.events), ...of('mention', erased.mentions)]);
  }

  async forget(memoryId: string, items: readonly ItemKey[]): Promise<void> {
    if (items.length === 0) return;
    await this.pool.query(
      `DELETE FROM mt_item_tiers t USING unnest($2::text[], $3::text[]) AS k(kind, id)
        WHERE t.memory_id = $1 AND t.kind = k.kind AND t.item_id = k.id`,
      [memoryId, items.map((i) => i.kind), items.map((i) => i.id)],
    );
  }
}

/** A deleted memory's statistics go in its deletion's transaction. */
export async function deleteMemoryItemTiersIn(client: Queryable, memoryId: string): Promise<number> {
  const { rowCount } = await client.query('DELETE FROM mt_item_tiers WHERE memory_id = $1', [memoryId]);
  return rowCount ?? 0;
}
