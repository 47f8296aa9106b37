import type { Command, Instant } from '@memotrace/domain';

/**
 * The extractor port (SPEC §5.1): dialog turns in, ordinary DSL commands out. An extractor is
 * pure with respect to the memory: it reads only its input and writes nothing; the service
 * gives each derived command its envelope (command id from turn, extractor and version; actor
 * `extractor:<name>@<version>`; record time) and appends the ones whose confidence reaches the
 * memory's gate.
 */

/** One dialog turn as recorded: a RECORD_MENTION of document `sessionId`. */
export interface Turn {
  /** The turn's mention id (its `turnId`, or the one derived for it). */
  mentionId: string;
  sessionId: string;
  speaker: string;
  text: string;
  /** When it was said (canonical UTC): relative time in `text` resolves against it. */
  at: Instant;
}

/** An entity the memory knows: derived commands name it by `entityId`. */
export interface KnownEntity {
  entityId: string;
  name: string;
  aliases: string[];
  types: string[];
}

export interface ExtractionInput {
  memoryId: string;
  /** The turns to derive from, in dialog order. */
  turns: Turn[];
  /** Turns said before them in the same sessions, oldest first: context only, nothing is derived from them. */
  window: Turn[];
  /** The memory's entities when extraction starts. */
  entities: KnownEntity[];
  /** The relations the memory knows (declared, or used by a fact): a statement names them as the memory does. */
  relations?: KnownRelation[];
}

/** A relation the memory knows, and how many values it holds at a time (`many` unless declared `one`). */
export interface KnownRelation {
  rel: string;
  cardinality: 'one' | 'many';
}

/** The ops an extractor may derive. */
export type DerivableOp = 'UPSERT_ENTITY' | 'MERGE_ENTITY' | 'DEFINE_RELATION' | 'UPSERT_EDGE' | 'UPSERT_EVENT';

/** A derived command without its envelope (the service adds commandId, actor, recordedAt, reason); one shape per op. */
export type DerivedBody = WithoutEnvelope<Extract<Command, { op: DerivableOp }>>;

type WithoutEnvelope<C> = C extends unknown ? Omit<C, 'commandId' | 'recordedAt' | 'actor' | 'reason'> : never;

export interface Derived {
  command: DerivedBody;
  /** How sure the extractor is, in [0, 1]; compared with the memory's gate. */
  confidence: number;
  /** The mention ids of the turns it rests on (at least one, all among the input's `turns`). */
  turns: string[];
  /** Why, in a few words (e.g. `first person "I live in"`): part of the command's reason. */
  why?: string;
}

/**
 * Derives commands from turns. Commands come in an order the memory can apply: an entity
 * before the facts and events naming it (ids as `deriveEntityId(memoryId, name)` gives them,
 * or a known entity's id). Deterministic for a given input, name and version: the service
 * derives command ids from (turn, name, version, place in the output), so a resend or a crash
 * never doubles a command.
 */
export interface Extractor {
  /** `[a-z0-9-]+`, e.g. `rules` or `llm`. */
  readonly name: string;
  /** e.g. `1.0.0`; a new version is a new extractor for re-extraction. */
  readonly version: string;
  extract(input: ExtractionInput, signal?: AbortSignal): Promise<Derived[]>;
}
