import type { TopicMember } from '../changes';
import type { Link, RecordMention, UpsertEpisode, UpsertEvent, UpsertTopic } from '../commands';
import { DomainError } from '../errors';
import { deriveEpisodeId, deriveEventId, deriveMentionId, deriveTopicId } from '../ids';
import { type MemoryState, linkKey, openVersion } from '../state';
import { type DecideContext, type Decision, requireEntity, requireEvents, requireFacts, sameList, unchanged, unique } from './context';

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

/** A topic's members keep the kind they have when it is recorded: a mention, else an event, else a fact; none of these is 404. */
export function decideUpsertTopic(command: UpsertTopic, { memoryId, state }: DecideContext): Decision {
  const members = unique(command.members).map((id, index) => memberOf(state, id, index));
  const topicId = command.topicId ?? deriveTopicId(memoryId, command.title, command.window.from);
  const data = {
    topicId,
    title: command.title,
    summary: command.summary,
    window: { from: command.window.from, to: command.window.to ?? null },
    members,
  };
  const current = openVersion(state.topics.get(topicId) ?? []);
  if (
    current &&
    current.title === data.title &&
    current.summary === data.summary &&
    current.window.from === data.window.from &&
    current.window.to === data.window.to &&
    sameList(current.members, data.members)
  ) {
    return unchanged({ topicId });
  }
  return { records: [{ type: 'TopicRecorded', data }], ids: { topicId } };
}

function memberOf(state: MemoryState, id: string, index: number): TopicMember {
  if (state.mentions.has(id)) return { kind: 'mention', id };
  if (state.events.has(id)) return { kind: 'event', id };
  if (state.facts.has(id)) return { kind: 'fact', id };
  throw new DomainError('UNKNOWN_MENTION', `unknown member ${JSON.stringify(id)}: no mention, event or fact has this id`, {
    field: `members[${index}]`,
    memberId: id,
  });
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
