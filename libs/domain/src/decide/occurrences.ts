import type { Link, RecordMention, UpsertEpisode, UpsertEvent } from '../commands';
import { DomainError } from '../errors';
import { deriveEpisodeId, deriveEventId, deriveMentionId } from '../ids';
import { linkKey, openVersion } from '../state';
import { type DecideContext, type Decision, requireEntity, requireEvents, requireFacts, sameList, unchanged } from './context';

export function decideUpsertEvent(command: UpsertEvent, { memoryId, state }: DecideContext): Decision {
  requireFacts(state, command.includesFacts, 'includesFacts');
  const participants = command.participants ?? [];
  participants.forEach((p, i) => requireEntity(state, p.entityId, `participants.${i}.entityId`));
  const eventId = command.eventId ?? deriveEventId(memoryId, command.summary, command.timeSpan.from);
  const data = {
    eventId,
    summary: command.summary,
    participants,
    includesFacts: command.includesFacts,
    timeSpan: { from: command.timeSpan.from, to: command.timeSpan.to ?? null },
  };
  const current = openVersion(state.events.get(eventId) ?? []);
  if (
    current &&
    current.summary === data.summary &&
    sameList(current.participants, data.participants) &&
    sameList(current.includesFacts, data.includesFacts) &&
    current.timeSpan.from === data.timeSpan.from &&
    current.timeSpan.to === data.timeSpan.to
  ) {
    return unchanged({ eventId });
  }
  return { records: [{ type: 'EventRecorded', data }], ids: { eventId } };
}

export function decideLink(command: Link, { state }: DecideContext): Decision {
  requireEvents(state, [command.from], 'from');
  requireEvents(state, [command.to], 'to');
  const qualifier = command.qualifier ?? null;
  const ids = { from: command.from, to: command.to };
  if (state.links.get(linkKey(command.kind, command.from, command.to))?.qualifier === qualifier) return unchanged(ids);
  return { records: [{ type: 'EventsLinked', data: { kind: command.kind, from: command.from, to: command.to, qualifier } }], ids };
}

export function decideUpsertEpisode(command: UpsertEpisode, { memoryId, state }: DecideContext): Decision {
  requireEvents(state, command.events, 'events');
  const episodeId = command.episodeId ?? deriveEpisodeId(memoryId, command.title, command.window.from);
  const data = { episodeId, title: command.title, window: { from: command.window.from, to: command.window.to ?? null }, events: command.events };
  const current = openVersion(state.episodes.get(episodeId) ?? []);
  if (
    current &&
    current.title === data.title &&
    current.window.from === data.window.from &&
    current.window.to === data.window.to &&
    sameList(current.events, data.events)
  ) {
    return unchanged({ episodeId });
  }
  return { records: [{ type: 'EpisodeRecorded', data }], ids: { episodeId } };
}

/** Mentions are surface evidence: immutable once recorded. */
export function decideRecordMention(command: RecordMention, { memoryId, state }: DecideContext): Decision {
  const occurredAt = command.occurredAt ?? null;
  const speaker = command.speaker ?? null;
  const mentionId = command.mentionId ?? deriveMentionId(memoryId, command.docId, command.text, occurredAt, speaker);
  const data = { mentionId, docId: command.docId, text: command.text, speaker, occurredAt };
  const existing = state.mentions.get(mentionId);
  if (existing) {
    const same =
      existing.docId === data.docId && existing.text === data.text && existing.speaker === data.speaker && existing.occurredAt === data.occurredAt;
    if (same) return unchanged({ mentionId });
    throw new DomainError('MENTION_CONFLICT', `mention ${JSON.stringify(mentionId)} was recorded with different content; mentions are immutable`, {
      mentionId,
    });
  }
  return { records: [{ type: 'MentionRecorded', data }], ids: { mentionId } };
}
