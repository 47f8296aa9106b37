import { type Change, versionedItemOf } from './changes';
import type { Command, CommandEnvelope, EdgeTarget } from './commands';
import { type ErasureSubject, subjectField } from './erasure';
import type { LogRecord, LogRecordType } from './records';
import type { MemoryState } from './state';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A command without its envelope (commandId, recordedAt, actor, reason). */
export type CommandBody = DistributiveOmit<Command, keyof CommandEnvelope>;

export type CommandIds = Record<string, string | string[]>;

/**
 * Everything the rest of the system knows about one type of log record, in one place:
 * what folding it changes, which ids it adds to its command's result, and (for export)
 * the command it is the record of.
 */
interface RecordType<R extends LogRecord> {
  change(data: R['data']): Change | null;
  /** The ids it adds to its command's result (`current`: those its command's earlier records added). */
  ids(data: R['data'], current: CommandIds): CommandIds;
  /**
   * The command whose first record it is, fully resolved (explicit ids and values), so
   * importing it into another memory decides the same records. `state` holds the log
   * before it.
   */
  command(data: R['data'], state: MemoryState): CommandBody;
}

type RecordTypes = { [T in LogRecordType]: RecordType<Extract<LogRecord, { type: T }>> };

const RECORD_TYPES: RecordTypes = {
  EntityRegistered: {
    change: ({ entityId, name, aliases, types }) => ({ change: 'entity', entityId, name, aliases, types }),
    ids: ({ entityId }) => ({ entityId }),
    command: ({ entityId, name, aliases, types }) => ({ op: 'UPSERT_ENTITY', entityId, name: name ?? entityId, aliases, types }),
  },
  EntityAliasesAdded: {
    change: ({ entityId, aliases, types }) => ({ change: 'labels', entityId, aliases, types }),
    ids: ({ entityId }) => ({ entityId }),
    command: ({ entityId, aliases, types }, state) => ({
      op: 'UPSERT_ENTITY',
      entityId,
      name: state.entities.get(entityId)?.name ?? entityId,
      aliases,
      types,
    }),
  },
  EntitiesMerged: {
    change: ({ srcId, dstId, srcRoot, dstRoot }) => ({ change: 'merge', srcId, dstId, srcRoot, dstRoot }),
    ids: ({ srcId, dstId }) => ({ srcId, dstId }),
    command: ({ srcId, dstId }) => ({ op: 'MERGE_ENTITY', srcId, dstId }),
  },
  RelationDefined: {
    change: ({ rel, cardinality, retention }) => ({ change: 'relation', rel, cardinality, retention: retention ?? null }),
    ids: ({ rel }) => ({ rel }),
    command: ({ rel, cardinality, retention }) => ({ op: 'DEFINE_RELATION', rel, cardinality, ...(retention !== undefined ? { retention } : {}) }),
  },
  ExtractionGateSet: {
    change: ({ gate }) => ({ change: 'gate', gate }),
    ids: () => ({}),
    command: ({ gate }) => ({ op: 'SET_EXTRACTION_GATE', gate }),
  },
  TierPolicySet: {
    change: ({ coldAfter, salienceFloor }) => ({ change: 'tiers', coldAfter, salienceFloor }),
    ids: () => ({}),
    command: ({ coldAfter, salienceFloor }) => ({ op: 'SET_TIER_POLICY', coldAfter, salienceFloor }),
  },
  FactAsserted: {
    // The record's data is the version's content (and its id): shared, never copied, since folds run per record.
    change: (data) => ({ change: 'opened', kind: 'fact', id: data.factId, content: data }),
    ids: ({ factId }) => ({ factId }),
    command: ({ factId, src, rel, dst, validFrom, validTo, confidence, evidence, source }) => ({
      op: 'UPSERT_EDGE',
      factId,
      src,
      rel,
      dst: dst ?? erasedLiteral(factId),
      validFrom,
      validTo,
      confidence,
      evidence,
      source,
    }),
  },
  FactArchived: {
    change: ({ factId }) => ({ change: 'closed', kind: 'fact', id: factId }),
    ids: ({ factId }) => ({ factId }),
    command: ({ factId }) => ({ op: 'ARCHIVE_EDGE', factId }),
  },
  FactRetroCorrected: {
    change: ({ factId, validFrom, validTo }) => ({ change: 'corrected', kind: 'fact', id: factId, validFrom, validTo }),
    ids: ({ factId }) => ({ factId }),
    command: ({ factId, validFrom, validTo }) => ({ op: 'RETRO_CORRECT', factId, validFrom, validTo }),
  },
  FactSuperseded: {
    change: ({ factId, validFrom, validTo }) => ({ change: 'corrected', kind: 'fact', id: factId, validFrom, validTo }),
    ids: ({ factId }, current) => {
      const previous = current['supersededFactIds'];
      return { supersededFactIds: [...(Array.isArray(previous) ? previous : []), factId] };
    },
    // Never the first record of a command (its UPSERT_EDGE's assertion is): export never asks.
    command: ({ factId, validFrom, validTo }) => ({ op: 'RETRO_CORRECT', factId, validFrom, validTo }),
  },
  EventRecorded: {
    change: (data) => ({ change: 'opened', kind: 'event', id: data.eventId, content: data }),
    ids: ({ eventId }) => ({ eventId }),
    command: ({ eventId, summary, participants, includesFacts, timeSpan }) => ({
      op: 'UPSERT_EVENT',
      eventId,
      summary: summary ?? eventId,
      participants,
      includesFacts,
      timeSpan,
    }),
  },
  EventsLinked: {
    change: ({ kind, from, to, qualifier }) => ({ change: 'link', kind, from, to, qualifier }),
    ids: ({ from, to }) => ({ from, to }),
    command: ({ kind, from, to, qualifier }) => ({ op: 'LINK', kind, from, to, ...(qualifier !== null ? { qualifier } : {}) }),
  },
  TopicRecorded: {
    change: ({ topicId, title, summary, window, members }) => ({
      change: 'opened',
      kind: 'topic',
      id: topicId,
      content: { title, summary, window, members },
    }),
    ids: ({ topicId }) => ({ topicId }),
    command: ({ topicId, title, summary, window, members }) => ({
      op: 'UPSERT_TOPIC',
      topicId,
      title: title ?? topicId,
      summary: summary ?? '',
      window,
      members: members.map((m) => m.id),
    }),
  },
  EpisodeRecorded: {
    change: (data) => ({ change: 'opened', kind: 'episode', id: data.episodeId, content: data }),
    ids: ({ episodeId }) => ({ episodeId }),
    command: ({ episodeId, title, window, events }) => ({ op: 'UPSERT_EPISODE', episodeId, title, window, events }),
  },
  MentionRecorded: {
    change: ({ mentionId, docId, text, speaker, occurredAt }) => ({ change: 'mention', mentionId, docId, text, speaker, occurredAt }),
    ids: ({ mentionId }) => ({ mentionId }),
    command: ({ mentionId, docId, text, speaker, occurredAt }) => ({
      op: 'RECORD_MENTION',
      mentionId,
      docId,
      text: text ?? mentionId,
      ...(speaker !== null ? { speaker } : {}),
      ...(occurredAt !== null ? { occurredAt } : {}),
    }),
  },
  SubjectErased: {
    change: ({ subject, entities, facts, events, mentions, topics }) => ({
      change: 'erased',
      subject,
      entities,
      facts,
      events,
      mentions,
      ...(topics !== undefined ? { topics } : {}),
    }),
    ids: ({ subject }) => ({ [`${subject.kind}Id`]: subject.id }),
    command: ({ subject }) => ({ op: 'ERASE', subject: subjectField(subject) }),
  },
  CommandUnchanged: {
    // Accepted without changing anything: only its outcome and record time count.
    change: () => null,
    ids: ({ ids }) => ({ ...ids }),
    command: ({ command }) => standInCommand(command) as unknown as CommandBody,
  },
};

/**
 * Export writes erased content as stand-ins made of ids (ids never carry personal data): importing
 * re-creates the items with content, and the erasures, exported in their place, empty them again,
 * so the imported memory answers as the erased one does.
 */
function erasedLiteral(factId: string): EdgeTarget {
  return { literal: factId, datatype: 'string' };
}

function standInCommand(command: Record<string, unknown>): Record<string, unknown> {
  const out = { ...command };
  const id = (field: string): string => String(command[field]);
  if (out['name'] === null) out['name'] = id('entityId');
  if (out['dst'] === null) out['dst'] = erasedLiteral(id('factId'));
  if (out['summary'] === null) out['summary'] = id('eventId');
  if (out['text'] === null) out['text'] = id('mentionId');
  if (out['title'] === null) out['title'] = id('topicId');
  if (out['op'] === 'UPSERT_TOPIC' && out['summary'] === null) out['summary'] = '';
  if (out['speaker'] === null) delete out['speaker'];
  // An unchanged ERASE logged with its subject's id beside `subject` (as logs written before held it): ERASE has no such field.
  if (out['op'] === 'ERASE') for (const field of ['entityId', 'factId', 'mentionId', 'docId']) delete out[field];
  return out;
}

function typeOf<R extends LogRecord>(record: R): RecordType<R> {
  return RECORD_TYPES[record.type] as unknown as RecordType<R>;
}

/** What folding `record` changes. */
export function changesOf(record: LogRecord): Change[] {
  const change = changeOf(record);
  return change === null ? [] : [change];
}

/** What folding `record` changes: one change, or none. */
export function changeOf(record: LogRecord): Change | null {
  return typeOf(record).change(record.data);
}

/** The subject an erasure record erases, and through which key generation; null for any other record. */
export function erasureOf(record: LogRecord): { subject: ErasureSubject; generation: number } | null {
  return record.type === 'SubjectErased' ? { subject: record.data.subject, generation: record.data.generation } : null;
}

/** The ids a record adds to its command's result. */
export function idsOf(record: LogRecord, current: CommandIds): CommandIds {
  return typeOf(record).ids(record.data, current);
}

/** The command whose first record `record` is (without its envelope); `state` holds the log before it. */
export function commandBodyOf(record: LogRecord, state: MemoryState): CommandBody {
  return typeOf(record).command(record.data, state);
}

/** Fact ids a record touches: the key of the per-fact audit stream. An erasure touches every fact whose content it erased. */
export function factIdsOf(record: LogRecord): string[] {
  const change = changeOf(record);
  if (change?.change === 'erased') return change.facts;
  const item = change === null ? null : versionedItemOf(change);
  return item !== null && item.kind === 'fact' ? [item.id] : [];
}
