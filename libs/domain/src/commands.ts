import type { DomainCommand } from '@memotrace/contracts';

/**
 * Domain commands: the DSL after edge validation, with instants in canonical form
 * (`Instant`), literals typed, and a commandId always present (the edge assigns one
 * when the client gave none). `validTo: null` explicitly opens a validity end; an
 * absent field means "not given".
 *
 * The shape is defined once, by the zod schemas of contracts/src/commands.ts; the types
 * here are derived from it (`DomainCommand` = the validated wire command with its
 * `commandId` required). A type-only import: the domain loads no package at run time.
 */
export type Command = DomainCommand;

export type CommandOp = Command['op'];

/** The command of one `op`. */
type CommandOf<Op extends CommandOp> = Extract<Command, { op: Op }>;

export type UpsertEntity = CommandOf<'UPSERT_ENTITY'>;
export type MergeEntity = CommandOf<'MERGE_ENTITY'>;
export type DefineRelation = CommandOf<'DEFINE_RELATION'>;
export type UpsertEdge = CommandOf<'UPSERT_EDGE'>;
export type ArchiveEdge = CommandOf<'ARCHIVE_EDGE'>;
export type RetroCorrect = CommandOf<'RETRO_CORRECT'>;
export type UpsertEvent = CommandOf<'UPSERT_EVENT'>;
export type Link = CommandOf<'LINK'>;
export type UpsertEpisode = CommandOf<'UPSERT_EPISODE'>;
export type UpsertTopic = CommandOf<'UPSERT_TOPIC'>;
export type RecordMention = CommandOf<'RECORD_MENTION'>;
export type Erase = CommandOf<'ERASE'>;
export type SetExtractionGate = CommandOf<'SET_EXTRACTION_GATE'>;
export type SetTierPolicy = CommandOf<'SET_TIER_POLICY'>;

/** The fields every command has: `commandId`, and optional `recordedAt`, `actor`, `reason`. */
export type CommandEnvelope = Pick<Command, 'commandId' | 'recordedAt' | 'actor' | 'reason'>;

/** An entity id, or a typed literal value. */
export type EdgeTarget = UpsertEdge['dst'];

/** `{literal, datatype}`: the edge checked that the value matches its datatype (an `instant` literal is canonical). */
export type Literal = Exclude<EdgeTarget, string>;
export type LiteralDatatype = Literal['datatype'];

export type Cardinality = DefineRelation['cardinality'];
export type LinkKind = Link['kind'];
export type Participant = NonNullable<UpsertEvent['participants']>[number];
