import { CHANGE_TYPES } from '@memotrace/domain';
import type { Projection } from '@memotrace/projection';
import type { PoolClient } from 'pg';
import { planBatch, versionedKeys } from './batch-plan';
import { loadHeads, writePlan } from './read-model-writes';

export const READ_MODELS_PROJECTION = 'read-models';

/**
 * The version chain's foreign key check is planned once per connection and kept until the
 * table's statistics change: planned while the version tables are nearly empty, it probes
 * the GiST cut index by memory_id alone and filters a whole memory per check, which slows the
 * live projection. So a projector analyzes them as it grows them
 * past 1,000, 10,000, 100,000... versions, as autovacuum would later; an ANALYZE makes every
 * connection plan again.
 */
export class StatisticsAfterGrowth {
  private written = 0;
  private next = 1_000;

  async afterWriting(versions: number, tx: PoolClient): Promise<void> {
    this.written += versions;
    if (this.written < this.next) return;
    while (this.next <= this.written) this.next *= 10;
    await tx.query('ANALYZE rm_fact_versions, rm_event_versions, rm_episode_versions');
  }
}

const statistics = new StatisticsAfterGrowth();

/** The read models apply every change: each one changes what some query answers. */
export const readModelsProjection: Projection = {
  name: READ_MODELS_PROJECTION,
  version: 1,
  handles: CHANGE_TYPES,
  async handle(records, tx) {
    if (records.length === 0) return;
    const heads = await loadHeads(tx, versionedKeys(records));
    const plan = planBatch(records, heads);
    await writePlan(tx, plan);
    await statistics.afterWriting(plan.facts.rows.length + plan.events.rows.length + plan.episodes.rows.length + plan.topics.rows.length, tx);
  },
};
