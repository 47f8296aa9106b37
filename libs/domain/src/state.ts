import type { TierPolicy, TopicContent } from './changes';
import type { Cardinality, EdgeTarget, LinkKind, Participant } from './commands';
import type { FactVersionFields } from './records';
import { MergeClasses } from './merge-classes';
import { InternedStrings } from './interned-strings';
import { OpenSlots } from './open-slots';
import type { Instant } from './time';
import type { MentionView } from './views';

/**
 * The folded log of one memory, with full record-time history: what the deciders
 * read and what replay queries cut. It is mutable for speed (folding 100k events
 * must not copy maps): `evolve` mutates the state it is given, so a state belongs
 * to one fold; build a fresh one with `initialState()`.
 */
export interface FactVersion extends FactVersionFields {
  recordedFrom: Instant;
  recordedTo: Instant | null;
  /** Its content (source, and the fact's literal) was erased. */
  erased?: true;
}

export interface FactRecord {
  factId: string;
  src: string;
  rel: string;
  /** Null once its literal is erased, until a later assertion names it again. */
  dst: EdgeTarget | null;
  /** Oldest first; only the last may be open. */
  versions: FactVersion[];
}

export interface Timed<T> {
  value: T;
  recordedFrom: Instant;
}

export interface EntityRecord {
  entityId: string;
  /** Null once erased; aliases and types added after an erasure are new content. */
  name: string | null;
  recordedFrom: Instant;
  aliases: Timed<string>[];
  types: Timed<string>[];
  erased?: true;
}

export interface MergeRecord {
  srcId: string;
  dstId: string;
  srcRoot: string;
  dstRoot: string;
  recordedAt: Instant;
}

export interface EventVersion {
  eventId: string;
  summary: string | null;
  participants: Participant[];
  includesFacts: string[];
  timeSpan: { from: Instant; to: Instant | null };
  recordedFrom: Instant;
  recordedTo: Instant | null;
  erased?: true;
}

export interface EpisodeVersion {
  episodeId: string;
  title: string;
  window: { from: Instant; to: Instant | null };
  events: string[];
  recordedFrom: Instant;
  recordedTo: Instant | null;
}

export interface TopicVersion extends TopicContent {
  topicId: string;
  recordedFrom: Instant;
  recordedTo: Instant | null;
  erased?: true;
}

export interface LinkRecord {
  kind: LinkKind;
  from: string;
  to: string;
  qualifier: string | null;
  recordedFrom: Instant;
}

/** A mention never changes once recorded: its record is its view. */
export type MentionRecord = MentionView;

/** What an accepted command created or touched, kept for idempotent retries. */
export interface CommandOutcome {
  recordedAt: Instant;
  ids: Record<string, string | string[]>;
  /** Who emitted the command (its `actor`), if it said. */
  actor: string | null;
}

export interface MemoryState {
  latestRecordedAt: Instant | null;
  /** Number of events folded; the stream revision is `eventCount - 1`. */
  eventCount: number;
  outcomes: Map<string, CommandOutcome>;
  /** Mention id → the commands derived from it (`derivedFrom`), in log order: what an extractor made of a turn. */
  derivations: Map<string, string[]>;
  entities: Map<string, EntityRecord>;
  /** The merge forest: canonical ids and the members of each class. */
  classes: MergeClasses;
  merges: MergeRecord[];
  relations: Map<string, Cardinality>;
  /** Relations with a retention: rel → ISO-8601 duration after which their facts' content is erased. */
  retentions: Map<string, string>;
  /** The least confidence of a derived command appended to this memory; null: the process's default. */
  extractionGate: number | null;
  facts: Map<string, FactRecord>;
  /** `rel \0 src` (src as stored on the fact) → fact ids, for supersession. */
  factsBySubject: Map<string, Set<string>>;
  /** The same facts by the end of their open version, for supersession at a valid time. */
  openSlots: OpenSlots;
  events: Map<string, EventVersion[]>;
  links: Map<string, LinkRecord>;
  episodes: Map<string, EpisodeVersion[]>;
  topics: Map<string, TopicVersion[]>;
  /** When the memory's items cool; null: never (no SET_TIER_POLICY yet). */
  tierPolicy: TierPolicy | null;
  mentions: Map<string, MentionRecord>;
  /** Erasures accepted per subject (`erasureKey`): content written after the n-th is sealed under the subject's key generation n. */
  erasures: Map<string, number>;
  /** The strings facts repeat, held once. */
  strings: InternedStrings;
}

export function initialState(): MemoryState {
  return {
    latestRecordedAt: null,
    eventCount: 0,
    outcomes: new Map(),
    derivations: new Map(),
    entities: new Map(),
    classes: new MergeClasses(),
    merges: [],
    relations: new Map(),
    retentions: new Map(),
    extractionGate: null,
    facts: new Map(),
    factsBySubject: new Map(),
    openSlots: new OpenSlots(),
    events: new Map(),
    links: new Map(),
    episodes: new Map(),
    topics: new Map(),
    tierPolicy: null,
    mentions: new Map(),
    erasures: new Map(),
    strings: new InternedStrings(),
  };
}

export function subjectKey(rel: string, src: string): string {
  return `${rel}\u0000${src}`;
}

/** The relation a `subjectKey` names. */
export function relOfSubjectKey(key: string): string {
  return key.slice(0, key.indexOf('\u0000'));
}

export function linkKey(kind: string, from: string, to: string): string {
  return `${kind}\u0000${from}\u0000${to}`;
}

export function canonicalTarget(classes: MergeClasses, target: EdgeTarget): EdgeTarget {
  return typeof target === 'string' ? classes.canonical(target) : target;
}

export function lastOf<T>(items: readonly T[]): T | undefined {
  return items[items.length - 1];
}

/** The version open in record time, if any. */
export function openVersion<T extends { recordedTo: Instant | null }>(versions: readonly T[]): T | undefined {
  const last = lastOf(versions);
  return last !== undefined && last.recordedTo === null ? last : undefined;
}
