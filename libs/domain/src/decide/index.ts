import type { Command } from '../commands';
import type { DecideContext, Decision } from './context';
import { decideDefineRelation, decideMergeEntity, decideUpsertEntity } from './entities';
import { decideArchiveEdge, decideRetroCorrect, decideUpsertEdge } from './facts';
import { decideErase } from './erase';
import { decideLink, decideRecordMention, decideUpsertEpisode, decideUpsertEvent, decideUpsertTopic } from './occurrences';
import { decideSetExtractionGate, decideSetTierPolicy } from './settings';

export type { DecideContext, Decision } from './context';

/** Pure: the events one command produces against the state, or a DomainError. */
export function decide(command: Command, context: DecideContext): Decision {
  switch (command.op) {
    case 'UPSERT_ENTITY':
      return decideUpsertEntity(command, context);
    case 'MERGE_ENTITY':
      return decideMergeEntity(command, context);
    case 'DEFINE_RELATION':
      return decideDefineRelation(command, context);
    case 'UPSERT_EDGE':
      return decideUpsertEdge(command, context);
    case 'ARCHIVE_EDGE':
      return decideArchiveEdge(command, context);
    case 'RETRO_CORRECT':
      return decideRetroCorrect(command, context);
    case 'UPSERT_EVENT':
      return decideUpsertEvent(command, context);
    case 'LINK':
      return decideLink(command, context);
    case 'UPSERT_EPISODE':
      return decideUpsertEpisode(command, context);
    case 'UPSERT_TOPIC':
      return decideUpsertTopic(command, context);
    case 'SET_TIER_POLICY':
      return decideSetTierPolicy(command, context);
    case 'RECORD_MENTION':
      return decideRecordMention(command, context);
    case 'SET_EXTRACTION_GATE':
      return decideSetExtractionGate(command, context);
    case 'ERASE':
      return decideErase(command, context);
  }
}
