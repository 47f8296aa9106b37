import type { TierPolicy, TopicContent } from './changes';
import type { Cardinality, EdgeTarget, LinkKind, Participant } from './commands';
import type { ErasedItems, ErasureSubject } from './erasure-subject';
import type { Instant } from './time';

/**
 * Log records, named in the past tense. Every field is resolved: ids derived,
 * defaults applied, so folding the log never needs the commands back.
 */
export interface EntityRegistered {
  type: 'EntityRegistered';
  /** `name` is null (and the lists empty) when read after its subject's key was destroyed (SPEC §5.2). */
  data: { entityId: string; name: string | null; aliases: string[]; types: string[] };
}

/** Only the aliases/types that were new. */
export interface EntityAliasesAdded {
  type: 'EntityAliasesAdded';
  data: { entityId: string; aliases: string[]; types: string[] };
}

/** `srcRoot`/`dstRoot`: the canonical ids of src and dst when the merge was recorded. */
export interface EntitiesMerged {
  type: 'EntitiesMerged';
  data: { srcId: string; dstId: string; srcRoot: string; dstRoot: string };
}

export interface RelationDefined {
  type: 'RelationDefined';
  /** `retention` (an ISO-8601 duration, null = none) is present when the relation has or had one; absent means none. */
  data: { rel: string; cardinality: Cardinality; retention?: string | null };
}

/** The memory's extraction gate from now on; null: the process's default. */
export interface ExtractionGateSet {
  type: 'ExtractionGateSet';
  data: { gate: number | null };
}

/** When the memory's items cool from now on (SPEC §5.4); both null: they never do. */
export interface TierPolicySet {
  type: 'TierPolicySet';
  data: TierPolicy;
}

export interface FactVersionFields {
  validFrom: Instant;
  validTo: Instant | null;
  confidence: number | null;
  evidence: string[];
  source: string | null;
}

/** Opens a new version at `recordedAt`, closing the open one (if any) there. */
export interface FactAsserted {
  type: 'FactAsserted';
  /** `dst` is null when its literal was read after a key it was sealed under was destroyed (SPEC §5.2). */
  data: { factId: string; src: string; rel: string; dst: EdgeTarget | null } & FactVersionFields;
}

/** Closes the open version at `recordedAt`. */
export interface FactArchived {
  type: 'FactArchived';
  data: { factId: string };
}

/** Closes the open version and opens one with the corrected validity. */
export interface FactRetroCorrected {
  type: 'FactRetroCorrected';
  data: { factId: string; validFrom: Instant; validTo: Instant | null };
}

/** A retro-correction caused by a `one`-relation assertion (`supersededBy`). */
export interface FactSuperseded {
  type: 'FactSuperseded';
  data: { factId: string; validFrom: Instant; validTo: Instant; supersededBy: string };
}

export interface EventRecorded {
  type: 'EventRecorded';
  data: {
    eventId: string;
    /** Null when read after a participant's key was destroyed (SPEC §5.2). */
    summary: string | null;
    participants: Participant[];
    includesFacts: string[];
    timeSpan: { from: Instant; to: Instant | null };
  };
}

export interface EventsLinked {
  type: 'EventsLinked';
  data: { kind: LinkKind; from: string; to: string; qualifier: string | null };
}

export interface EpisodeRecorded {
  type: 'EpisodeRecorded';
  data: { episodeId: string; title: string; window: { from: Instant; to: Instant | null }; events: string[] };
}

/** Durative memory: what went on over `window`; `members` keep their kinds, resolved when it was recorded. */
export interface TopicRecorded {
  type: 'TopicRecorded';
  data: { topicId: string } & TopicContent;
}

/**
 * The subject's content is gone at every record time (SPEC §5.2): the record lists the items
 * whose content it removes (ids only), so every view applies it without deciding again.
 */
export interface SubjectErased {
  type: 'SubjectErased';
  /** `generation`: the subject's key generation the erasure ends (content written after it is sealed under the next). */
  data: { subject: ErasureSubject; generation: number } & ErasedItems;
}

export interface MentionRecorded {
  type: 'MentionRecorded';
  /** `text` and `speaker` are null when read after the mention's or its document's key was destroyed (SPEC §5.2). */
  data: { mentionId: string; docId: string; text: string | null; speaker: string | null; occurredAt: Instant | null };
}

/**
 * A command accepted without changing anything (status `unchanged`, SPEC §3.1: no new version).
 * The log still keeps it, so its commandId and result are remembered (a resend is a
 * `duplicate`), its recordedAt is the memory's latest (record time stays monotone), and export
 * lists it like every accepted command. `command` is the command as it resolved (default ids
 * filled in), without the envelope, which is the record's meta.
 */
export interface CommandUnchanged {
  type: 'CommandUnchanged';
  data: { command: Record<string, unknown>; ids: Record<string, string | string[]> };
}

export type LogRecord =
  | EntityRegistered
  | EntityAliasesAdded
  | EntitiesMerged
  | RelationDefined
  | ExtractionGateSet
  | TierPolicySet
  | FactAsserted
  | FactArchived
  | FactRetroCorrected
  | FactSuperseded
  | EventRecorded
  | EventsLinked
  | EpisodeRecorded
  | TopicRecorded
  | MentionRecorded
  | SubjectErased
  | CommandUnchanged;

export type LogRecordType = LogRecord['type'];

/** Who/when of the command that produced a record; shared by all its records. */
export interface RecordMeta {
  commandId: string;
  recordedAt: Instant;
  actor: string | null;
  reason: string | null;
  /** The mentions (dialog turns) the command was derived from; absent for commands not derived from any. */
  derivedFrom?: string[];
}

export type MemoryRecord<E extends LogRecord = LogRecord> = E & { meta: RecordMeta };
