import type { DomainEventType } from '@memotrace/domain';
import type { LoggedMemoryEvent } from '@memotrace/memory-log';
import type { PoolClient } from 'pg';
import { planBatch, versionedKeys } from './batch-plan';
import { loadHeads, writePlan } from './read-model-writes';

/** Emmett-style projection: handles a batch of log events inside the projector's transaction. */
export interface PostgresProjection {
  name: string;
  version: number;
  canHandle: readonly DomainEventType[];
  handle(events: readonly LoggedMemoryEvent[], tx: PoolClient): Promise<void>;
}

export const READ_MODELS_PROJECTION = 'read-models';

/** Every domain event type (the read models fold them all, as `evolve` does). */
const ALL_TYPES: readonly DomainEventType[] = [
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

export const readModelsProjection: PostgresProjection = {
  name: READ_MODELS_PROJECTION,
  version: 1,
  canHandle: ALL_TYPES,
  async handle(events, tx) {
    if (events.length === 0) return;
    const heads = await loadHeads(tx, versionedKeys(events));
    await writePlan(tx, planBatch(events, heads));
  },
};
