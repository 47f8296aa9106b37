import type { Instant } from './time';

/**
 * Domain commands: the DSL after edge validation (contracts/), with instants in
 * canonical form, literals typed, and a commandId always present (the edge assigns
 * one when the client gave none). `validTo: null` explicitly opens a validity end;
 * an absent field means "not given".
 */
export type LiteralDatatype = 'string' | 'number' | 'boolean' | 'instant';

export interface Literal {
  literal: string | number | boolean;
  datatype: LiteralDatatype;
}

/** An entity id, or a typed literal value. */
export type EdgeTarget = string | Literal;

export interface CommandEnvelope {
  commandId: string;
  recordedAt?: Instant;
  actor?: string;
  reason?: string;
}

export interface UpsertEntity extends CommandEnvelope {
  op: 'UPSERT_ENTITY';
  entityId?: string;
  name: string;
  aliases?: string[];
  types?: string[];
}

export interface MergeEntity extends CommandEnvelope {
  op: 'MERGE_ENTITY';
  srcId: string;
  dstId: string;
}

export type Cardinality = 'one' | 'many';

export interface DefineRelation extends CommandEnvelope {
  op: 'DEFINE_RELATION';
  rel: string;
  cardinality: Cardinality;
}

export interface UpsertEdge extends CommandEnvelope {
  op: 'UPSERT_EDGE';
  factId?: string;
  src: string;
  rel: string;
  dst: EdgeTarget;
  validFrom?: Instant;
  validTo?: Instant | null;
  confidence?: number | null;
  evidence?: string[];
  source?: string | null;
}

export interface ArchiveEdge extends CommandEnvelope {
  op: 'ARCHIVE_EDGE';
  factId: string;
}

export interface RetroCorrect extends CommandEnvelope {
  op: 'RETRO_CORRECT';
  factId: string;
  validFrom?: Instant;
  validTo?: Instant | null;
}

export interface Participant {
  entityId: string;
  role: string;
}

export interface UpsertEvent extends CommandEnvelope {
  op: 'UPSERT_EVENT';
  eventId?: string;
  summary: string;
  participants?: Participant[];
  includesFacts: string[];
  timeSpan: { from: Instant; to?: Instant | null };
}

export type LinkKind = 'role' | 'temporal' | 'causal' | 'coref' | 'subevent' | 'related_to';

export interface Link extends CommandEnvelope {
  op: 'LINK';
  kind: LinkKind;
  from: string;
  to: string;
  qualifier?: string;
}

export interface UpsertEpisode extends CommandEnvelope {
  op: 'UPSERT_EPISODE';
  episodeId?: string;
  title: string;
  window: { from: Instant; to?: Instant | null };
  events: string[];
}

export interface RecordMention extends CommandEnvelope {
  op: 'RECORD_MENTION';
  mentionId?: string;
  docId: string;
  text: string;
  speaker?: string;
  occurredAt?: Instant;
}

export type Command =
  | UpsertEntity
  | MergeEntity
  | DefineRelation
  | UpsertEdge
  | ArchiveEdge
  | RetroCorrect
  | UpsertEvent
  | Link
  | UpsertEpisode
  | RecordMention;

export type CommandOp = Command['op'];
