import type { TopicMember } from './changes';
import type { EdgeTarget } from './commands';
import { type ErasureSubject, erasureKey } from './erasure';
import type { LogRecord, MemoryRecord } from './records';
import type { MemoryState } from './state';

/**
 * What of a log record is personal content (SPEC §5.2) and whose erasure removes it: the one
 * definition the log's sealing reads. A record splits into its bare data (content fields
 * emptied: ids, times and structure stay) and its content, sealed under the keys of its
 * subjects, so destroying any one of those keys makes the content unreadable in every copy.
 *
 * The subjects follow `erasedItemsOf`: an entity's names, aliases and types are the entity's;
 * a fact's literal and source are the fact's and its src's and entity dst's; an event's summary
 * is every entity's that ever took part in it; a mention's text and speaker are the mention's
 * and its document's; a topic's title and summary are its members' subjects' (they say what the
 * members say).
 */
export type Content = Record<string, unknown>;

/** A subject's key generation: how many erasures of it the log holds before the record. */
export interface ContentSubject extends ErasureSubject {
  generation: number;
}

export interface SplitRecord {
  /** The record's data with its content emptied (null, or [] for lists). */
  bare: LogRecord['data'];
  /** The content fields removed from it; null when the record has none. */
  content: Content | null;
  /** Whose erasure removes the content (with their generations): empty when content is null. */
  subjects: ContentSubject[];
}

type Spec = {
  [T in LogRecord['type']]?: {
    fields(data: Extract<LogRecord, { type: T }>['data']): Content | null;
    subjects(data: Extract<LogRecord, { type: T }>['data'], state: MemoryState): ErasureSubject[];
  };
};

const entity = (id: string): ErasureSubject => ({ kind: 'entity', id });

const SPEC: Spec = {
  EntityRegistered: {
    fields: ({ name, aliases, types }) => ({ name, aliases, types }),
    subjects: ({ entityId }) => [entity(entityId)],
  },
  EntityAliasesAdded: {
    fields: ({ aliases, types }) => ({ aliases, types }),
    subjects: ({ entityId }) => [entity(entityId)],
  },
  FactAsserted: {
    fields: ({ dst, source }) => factFields(dst, source),
    subjects: ({ factId, src, dst }) => factSubjects(factId, src, dst),
  },
  EventRecorded: {
    fields: ({ summary }) => ({ summary }),
    subjects: ({ eventId, participants }, state) => eventSubjects(state, eventId, participants),
  },
  MentionRecorded: {
    fields: ({ text, speaker }) => ({ text, speaker }),
    subjects: ({ mentionId, docId }) => mentionSubjects(mentionId, docId),
  },
  TopicRecorded: {
    fields: ({ title, summary }) => ({ title, summary }),
    subjects: ({ members }, state) => topicSubjects(state, members),
  },
  CommandUnchanged: {
    fields: ({ command }) => commandFields(command),
    subjects: ({ command }, state) => commandSubjects(command, state),
  },
};

/** Fields a command body of each op holds as content (an unchanged command keeps its body). */
const COMMAND_CONTENT: Record<string, readonly string[]> = {
  UPSERT_ENTITY: ['name', 'aliases', 'types'],
  UPSERT_EDGE: ['dst', 'source'],
  UPSERT_EVENT: ['summary'],
  RECORD_MENTION: ['text', 'speaker'],
  UPSERT_TOPIC: ['title', 'summary'],
};

function factFields(dst: EdgeTarget | null, source: string | null): Content | null {
  const literal = dst !== null && typeof dst !== 'string';
  if (!literal && source === null) return null;
  return { ...(literal ? { dst } : {}), ...(source !== null ? { source } : {}) };
}

function factSubjects(factId: string, src: string, dst: EdgeTarget | null): ErasureSubject[] {
  return [{ kind: 'fact', id: factId }, entity(src), ...(typeof dst === 'string' ? [entity(dst)] : [])];
}

function eventSubjects(state: MemoryState, eventId: string, participants: readonly { entityId: string }[]): ErasureSubject[] {
  const ids = new Set(participants.map((p) => p.entityId));
  for (const version of state.events.get(eventId) ?? []) version.participants.forEach((p) => ids.add(p.entityId));
  return [...ids].map(entity);
}

function mentionSubjects(mentionId: string, docId: string): ErasureSubject[] {
  return [
    { kind: 'mention', id: mentionId },
    { kind: 'doc', id: docId },
  ];
}

/** The subjects of a topic's members: whose erasure takes what the topic says of them. */
function topicSubjects(state: MemoryState, members: readonly TopicMember[]): ErasureSubject[] {
  return members.flatMap((member): ErasureSubject[] => {
    switch (member.kind) {
      case 'mention': {
        const mention = state.mentions.get(member.id);
        return mention ? mentionSubjects(member.id, mention.docId) : [{ kind: 'mention', id: member.id }];
      }
      case 'fact': {
        const fact = state.facts.get(member.id);
        return fact ? factSubjects(member.id, fact.src, fact.dst) : [{ kind: 'fact', id: member.id }];
      }
      case 'event':
        return eventSubjects(state, member.id, []);
      default:
        return member.kind satisfies never;
    }
  });
}

/** An unchanged UPSERT_TOPIC names its members by id: their kinds are the state's. */
function topicMembersOf(state: MemoryState, ids: readonly string[]): TopicMember[] {
  return ids.map((id): TopicMember => ({ kind: state.mentions.has(id) ? 'mention' : state.events.has(id) ? 'event' : 'fact', id }));
}

function commandFields(command: Record<string, unknown>): Content | null {
  const content: Content = {};
  for (const field of COMMAND_CONTENT[String(command['op'])] ?? []) {
    const value = command[field];
    // An entity id as dst is structure, not content.
    if (value === undefined || (field === 'dst' && typeof value === 'string')) continue;
    content[field] = value;
  }
  return Object.keys(content).length > 0 ? content : null;
}

function commandSubjects(command: Record<string, unknown>, state: MemoryState): ErasureSubject[] {
  const str = (field: string): string => String(command[field]);
  switch (command['op']) {
    case 'UPSERT_ENTITY':
      return [entity(str('entityId'))];
    case 'UPSERT_EDGE':
      return factSubjects(str('factId'), str('src'), command['dst'] as EdgeTarget);
    case 'UPSERT_EVENT':
      return eventSubjects(state, str('eventId'), (command['participants'] as { entityId: string }[] | undefined) ?? []);
    case 'RECORD_MENTION':
      return mentionSubjects(str('mentionId'), str('docId'));
    case 'UPSERT_TOPIC':
      return topicSubjects(state, topicMembersOf(state, (command['members'] as string[] | undefined) ?? []));
    default:
      return [];
  }
}

/** A subject's key generation at a record: how many erasures of it the log holds before the record. */
export type GenerationOf = (subject: ErasureSubject) => number;

/**
 * Splits a record about to be appended. `state` holds the log before it or after its batch
 * (an event's participants then include the batch's: sealing under more keys is never less safe).
 * A record with content but no subject (an event without participants) keeps its content: no
 * erasure can reach it.
 */
export function splitContent(record: LogRecord, state: MemoryState, generationOf: GenerationOf): SplitRecord {
  const spec = SPEC[record.type] as Spec[LogRecord['type']] & {};
  const data = record.data as never;
  const content = spec ? spec.fields(data) : null;
  const subjects = content === null ? [] : uniqueSubjects(spec!.subjects(data, state), generationOf);
  if (content === null || subjects.length === 0) return { bare: record.data, content: null, subjects: [] };
  return { bare: withContent(record.type, record.data, null), content, subjects };
}

/**
 * The record's data with its content put back, or emptied when `content` is null (its key was
 * destroyed): names and texts become null, lists empty, a literal dst null.
 */
export function withContent<D extends LogRecord['data']>(type: LogRecord['type'], bare: D, content: Content | null): D {
  if (type === 'CommandUnchanged') {
    const { command, ids } = bare as unknown as { command: Record<string, unknown>; ids: unknown };
    return { command: { ...command, ...(content ?? emptied(command, COMMAND_CONTENT[String(command['op'])] ?? [])) }, ids } as unknown as D;
  }
  if (content !== null) return { ...bare, ...content };
  const fields = SPEC[type]?.fields(bare as never);
  return fields ? ({ ...bare, ...emptied(bare as Record<string, unknown>, Object.keys(fields)) } as D) : bare;
}

function emptied(data: Record<string, unknown>, fields: readonly string[]): Content {
  const out: Content = {};
  for (const field of fields) {
    const value = data[field];
    if (value === undefined || (field === 'dst' && typeof value === 'string')) continue;
    out[field] = Array.isArray(value) ? [] : null;
  }
  return out;
}

function uniqueSubjects(subjects: readonly ErasureSubject[], generationOf: GenerationOf): ContentSubject[] {
  // A record has a few subjects: a scan is cheaper than keying a map.
  const unique: ContentSubject[] = [];
  for (const subject of subjects) {
    if (!unique.some((seen) => seen.kind === subject.kind && seen.id === subject.id))
      unique.push({ kind: subject.kind, id: subject.id, generation: generationOf(subject) });
  }
  return unique;
}

/** The records of one decided batch, each with its split and the subjects of its command's reason. */
export interface SplitBatchRecord {
  record: MemoryRecord;
  split: SplitRecord;
  /**
   * The union of the command's records' subjects: a reason goes with any content its command wrote
   * (the record's own array when it is its command's only record).
   */
  reasonSubjects: ContentSubject[];
}

/**
 * Splits a decided batch; `stateAfter` folds the log through it (a decision evolves its state).
 * A record's generations are those before it: the state's counts less the batch's erasures at or
 * after it.
 */
export function splitBatch(records: readonly MemoryRecord[], stateAfter: MemoryState): SplitBatchRecord[] {
  const pending = new Map<string, number>();
  for (const record of records) {
    if (record.type === 'SubjectErased') pending.set(erasureKey(record.data.subject), (pending.get(erasureKey(record.data.subject)) ?? 0) + 1);
  }
  // The batch's erasures are in stateAfter's: a memory never erased has generation 0 throughout.
  const generationOf: GenerationOf =
    stateAfter.erasures.size === 0
      ? () => 0
      : (subject) => {
          const key = erasureKey(subject);
          return (stateAfter.erasures.get(key) ?? 0) - (pending.get(key) ?? 0);
        };
  const out: SplitBatchRecord[] = [];
  let commandStart = 0;
  for (const record of records) {
    if (out.length > 0 && out[out.length - 1]!.record.meta.commandId !== record.meta.commandId) {
      closeCommand(out, commandStart);
      commandStart = out.length;
    }
    out.push({ record, split: splitContent(record, stateAfter, generationOf), reasonSubjects: [] });
    if (record.type === 'SubjectErased') pending.set(erasureKey(record.data.subject), pending.get(erasureKey(record.data.subject))! - 1);
  }
  closeCommand(out, commandStart);
  return out;
}

function closeCommand(out: SplitBatchRecord[], from: number): void {
  if (from === out.length - 1) {
    out[from]!.reasonSubjects = out[from]!.split.subjects;
    return;
  }
  const union = new Map<string, ContentSubject>();
  for (let i = from; i < out.length; i++) {
    for (const subject of out[i]!.split.subjects) union.set(`${erasureKey(subject)}\u0000${subject.generation}`, subject);
  }
  const subjects = [...union.values()];
  for (let i = from; i < out.length; i++) out[i]!.reasonSubjects = subjects;
}
