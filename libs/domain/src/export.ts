import type { Command } from './commands';
import type { MemoryEvent } from './events';
import { evolve } from './evolve';
import { type MemoryState, initialState } from './state';

/**
 * The accepted commands of a log, one per command, fully resolved (explicit ids
 * and values), so replaying them into another memory gives the same answers.
 * Derived events (supersessions) are not exported: replay derives them again.
 * Key order is fixed, so export → import → export is byte-stable.
 */
export function commandsOfLog(events: Iterable<MemoryEvent>): Command[] {
  const state = initialState();
  const commands: Command[] = [];
  let lastCommandId: string | null = null;
  for (const event of events) {
    if (event.meta.commandId !== lastCommandId) {
      lastCommandId = event.meta.commandId;
      commands.push(commandOf(event, state));
    }
    evolve(state, event);
  }
  return commands;
}

function commandOf(event: MemoryEvent, state: MemoryState): Command {
  const { commandId, recordedAt, actor, reason } = event.meta;
  const envelope = { commandId, recordedAt, ...(actor !== null ? { actor } : {}), ...(reason !== null ? { reason } : {}) };
  switch (event.type) {
    case 'EntityRegistered':
      return { op: 'UPSERT_ENTITY', entityId: event.data.entityId, name: event.data.name, aliases: event.data.aliases, types: event.data.types, ...envelope };
    case 'EntityAliasesAdded':
      return { op: 'UPSERT_ENTITY', entityId: event.data.entityId, name: state.entities.get(event.data.entityId)?.name ?? event.data.entityId, aliases: event.data.aliases, types: event.data.types, ...envelope };
    case 'EntitiesMerged':
      return { op: 'MERGE_ENTITY', srcId: event.data.srcId, dstId: event.data.dstId, ...envelope };
    case 'RelationDefined':
      return { op: 'DEFINE_RELATION', rel: event.data.rel, cardinality: event.data.cardinality, ...envelope };
    case 'FactAsserted': {
      const d = event.data;
      return { op: 'UPSERT_EDGE', factId: d.factId, src: d.src, rel: d.rel, dst: d.dst, validFrom: d.validFrom, validTo: d.validTo, confidence: d.confidence, evidence: d.evidence, source: d.source, ...envelope };
    }
    case 'FactArchived':
      return { op: 'ARCHIVE_EDGE', factId: event.data.factId, ...envelope };
    case 'FactRetroCorrected':
    case 'FactSuperseded': // never first of a command: listed for exhaustiveness
      return { op: 'RETRO_CORRECT', factId: event.data.factId, validFrom: event.data.validFrom, validTo: event.data.validTo, ...envelope };
    case 'EventRecorded': {
      const d = event.data;
      return { op: 'UPSERT_EVENT', eventId: d.eventId, summary: d.summary, participants: d.participants, includesFacts: d.includesFacts, timeSpan: d.timeSpan, ...envelope };
    }
    case 'EventsLinked': {
      const d = event.data;
      return { op: 'LINK', kind: d.kind, from: d.from, to: d.to, ...(d.qualifier !== null ? { qualifier: d.qualifier } : {}), ...envelope };
    }
    case 'EpisodeRecorded': {
      const d = event.data;
      return { op: 'UPSERT_EPISODE', episodeId: d.episodeId, title: d.title, window: d.window, events: d.events, ...envelope };
    }
    case 'CommandUnchanged':
      return { ...event.data.command, ...envelope } as unknown as Command;
    case 'MentionRecorded': {
      const d = event.data;
      return {
        op: 'RECORD_MENTION',
        mentionId: d.mentionId,
        docId: d.docId,
        text: d.text,
        ...(d.speaker !== null ? { speaker: d.speaker } : {}),
        ...(d.occurredAt !== null ? { occurredAt: d.occurredAt } : {}),
        ...envelope,
      };
    }
  }
}
