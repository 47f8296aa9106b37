import type { DomainEventType } from '@memotrace/domain';
import type { LoggedMemoryEvent } from '@memotrace/memory-log';
import type { Pool, PoolClient } from 'pg';
import { planBatch, versionedKeys } from './batch-plan';
import { loadHeads, writePlan } from './read-model-writes';

/** Emmett-style projection: handles a batch of log events inside the projector's transaction. */
export interface PostgresProjection {
  name: string;
  version: number;
  canHandle: readonly DomainEventType[];
  handle(events: readonly LoggedMemoryEvent[], tx: PoolClient): Promise<void>;
  /**
   * Slow work that needs no lock (embedding), run before the transaction: once the transaction
   * holds a transaction id (its checkpoint row lock), every reader's safe head waits for it.
   */
  prepare?(events: readonly LoggedMemoryEvent[], db: Pick<Pool, 'query'>): Promise<void>;
}

export const READ_MODELS_PROJECTION = 'read-models';

/** Every domain event type that changes what a query answers (not CommandUnchanged: it changes nothing). */
const ANSWER_CHANGING_TYPES: readonly DomainEventType[] = [
  'EntityRegistered',
  'EntityAliasesAdded',
  'EntitiesMerged',
  'RelationDefined',
  'FactAsserted',
  'FactArchived',
  'FactRetroCorrected',
  'FactSuperseded',
  'EventRecorded',
  'EventsLinked',
  'EpisodeRecorded',
  'MentionRecorded',
];

/**
 * The version chain's foreign key check is planned once per connection and kept until the
 * table's statistics change: planned while the version tables were nearly empty, it probes
 * the GiST cut index by memory_id alone and filters a whole memory per check (measured: live
 * projection of 100,000 versions ~2x slower). So a projector analyzes them as it grows them
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

export const readModelsProjection: PostgresProjection = {
  name: READ_MODELS_PROJECTION,
  version: 1,
  canHandle: ANSWER_CHANGING_TYPES,
  async handle(events, tx) {
    if (events.length === 0) return;
    const heads = await loadHeads(tx, versionedKeys(events));
    const plan = planBatch(events, heads);
    await writePlan(tx, plan);
    await statistics.afterWriting(plan.facts.rows.length + plan.events.rows.length + plan.episodes.rows.length, tx);
  },
};
