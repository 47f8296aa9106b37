import { z } from 'zod';
import { literalTarget } from './literals';
import { duration, id, idList, instant, list, MAX_LIST_ITEMS, nonBlankText, nonEmptyText, retention, text } from './primitives';

/**
 * The DSL at the edge (SPEC §3): one strict object per `op` (unknown fields are
 * rejected), discriminated on `op`. Outputs carry canonical instants and typed
 * literals; see `toDomainCommand` in ./domain-command.ts for the domain form.
 */

const envelope = {
  commandId: id.optional(),
  recordedAt: instant.optional(),
  actor: id.optional(),
  reason: text.optional(),
  /** The mentions (dialog turns) the command was derived from: `GET …/mentions/{id}/derived` lists it. */
  derivedFrom: idList.optional(),
};

function command<Op extends string, Shape extends z.ZodRawShape>(op: Op, shape: Shape) {
  // A field of `shape` replaces the envelope's (ERASE requires `reason`): typed as the spread behaves.
  const fields = { op: z.literal(op), ...envelope, ...shape } as { op: z.ZodLiteral<Op> } & Omit<typeof envelope, keyof Shape> & Shape;
  return z.strictObject(fields);
}

/** Adds an issue at `path` unless `to` is open/absent or later than `from`. */
function checkOrder(
  from: string | undefined,
  to: string | null | undefined,
  ctx: z.RefinementCtx,
  path: (string | number)[],
  fromName: string,
): void {
  if (from !== undefined && to !== undefined && to !== null && to <= from) {
    ctx.addIssue({ code: 'custom', message: `must be later than ${fromName}`, path, input: to });
  }
}

/** `{from, to?}` with `to` null/absent = open, `to > from`. */
export const interval = z
  .strictObject({ from: instant, to: instant.nullable().optional() })
  .superRefine((v, ctx) => checkOrder(v.from, v.to, ctx, ['to'], 'from'));

export const upsertEntity = command('UPSERT_ENTITY', {
  entityId: id.optional(),
  name: nonBlankText,
  aliases: list(nonBlankText).optional(),
  types: list(nonBlankText).optional(),
});

export const mergeEntity = command('MERGE_ENTITY', { srcId: id, dstId: id }).superRefine((v, ctx) => {
  if (v.srcId === v.dstId) ctx.addIssue({ code: 'custom', message: 'must differ from srcId', path: ['dstId'], input: v.dstId });
});

/** `retention`: how long the relation's facts keep their content; omitted keeps the current one, null removes it. */
export const defineRelation = command('DEFINE_RELATION', {
  rel: id,
  cardinality: z.enum(['one', 'many']),
  retention: retention.nullable().optional(),
});

export const edgeTarget = z.union([id, literalTarget], {
  error: 'must be an entity id or a literal {literal, datatype?}',
});

export const upsertEdge = command('UPSERT_EDGE', {
  factId: id.optional(),
  src: id,
  rel: id,
  dst: edgeTarget,
  validFrom: instant.optional(),
  validTo: instant.nullable().optional(),
  confidence: z.number().min(0).max(1).nullable().optional(),
  evidence: idList.optional(),
  source: text.nullable().optional(),
}).superRefine((v, ctx) => checkOrder(v.validFrom, v.validTo, ctx, ['validTo'], 'validFrom'));

export const archiveEdge = command('ARCHIVE_EDGE', { factId: id });

export const retroCorrect = command('RETRO_CORRECT', {
  factId: id,
  validFrom: instant.optional(),
  validTo: instant.nullable().optional(),
}).superRefine((v, ctx) => {
  if (v.validFrom === undefined && v.validTo === undefined) {
    ctx.addIssue({ code: 'custom', message: 'at least one of validFrom, validTo is required', path: ['validFrom'] });
  }
  checkOrder(v.validFrom, v.validTo, ctx, ['validTo'], 'validFrom');
});

export const participant = z.strictObject({ entityId: id, role: nonEmptyText });

export const upsertEvent = command('UPSERT_EVENT', {
  eventId: id.optional(),
  summary: nonEmptyText,
  participants: list(participant).optional(),
  includesFacts: idList,
  timeSpan: interval,
});

export const linkKind = z.enum(['role', 'temporal', 'causal', 'coref', 'subevent', 'related_to']);

export const link = command('LINK', { kind: linkKind, from: id, to: id, qualifier: text.optional() });

export const upsertEpisode = command('UPSERT_EPISODE', {
  episodeId: id.optional(),
  title: nonEmptyText,
  window: interval,
  events: idList,
});

/**
 * Durative memory (SPEC §5.4): what went on over a period. `members` are mention, event and fact ids;
 * like an episode it is never evidence.
 */
export const upsertTopic = command('UPSERT_TOPIC', {
  topicId: id.optional(),
  title: nonEmptyText,
  summary: text,
  window: interval,
  members: idList.min(1),
});

export const recordMention = command('RECORD_MENTION', {
  mentionId: id.optional(),
  docId: id,
  text: text,
  speaker: text.optional(),
  occurredAt: instant.optional(),
});

/**
 * The memory's extraction gate (SPEC §5.1): derived commands below this confidence are not appended.
 * `null` returns the memory to the process's default (`EXTRACTION_GATE`).
 */
export const setExtractionGate = command('SET_EXTRACTION_GATE', { gate: z.number().min(0).max(1).nullable() });

/**
 * When the memory's items cool (SPEC §5.4): not returned by a search nor asserted again for
 * `coldAfter`, and a salience below `salienceFloor`. Null turns that condition off; both null: nothing cools.
 */
export const setTierPolicy = command('SET_TIER_POLICY', {
  coldAfter: duration.nullable(),
  salienceFloor: z.number().min(0).max(1).nullable(),
});

/** What an ERASE names (SPEC §5.2): exactly one of an entity, a fact, a mention or a document (its mentions). */
export const erasureSubject = z.union(
  [z.strictObject({ entityId: id }), z.strictObject({ factId: id }), z.strictObject({ mentionId: id }), z.strictObject({ docId: id })],
  { error: 'must name exactly one of entityId, factId, mentionId, docId' },
);

/** The one op that changes the past: the subject's content is gone at every record time. The reason is required: the audit keeps it. */
export const erase = command('ERASE', { subject: erasureSubject, reason: text });

export const wireCommand = z.discriminatedUnion('op', [
  upsertEntity,
  mergeEntity,
  defineRelation,
  upsertEdge,
  archiveEdge,
  retroCorrect,
  upsertEvent,
  link,
  upsertEpisode,
  upsertTopic,
  recordMention,
  setExtractionGate,
  setTierPolicy,
  erase,
]);

export const MAX_BATCH = MAX_LIST_ITEMS;

/** `POST /v1/memories/{memoryId}/commands` body: 1..1000 commands. */
export const commandsRequest = z.strictObject({ commands: z.array(wireCommand).min(1).max(MAX_BATCH) });

/** A command as sent by a client (JSON). */
export type WireCommandInput = z.input<typeof wireCommand>;
/** A validated command: canonical instants, typed literals, optional commandId. */
export type WireCommand = z.output<typeof wireCommand>;
export type CommandsRequest = z.output<typeof commandsRequest>;

/**
 * A validated command with its `commandId` (the client's, or one the edge assigned). Distributes
 * over a union, so each `op` keeps its own fields; every other field keeps its optionality.
 */
export type WithCommandId<C extends { commandId?: string | undefined }> = C extends unknown
  ? Flat<Omit<C, 'commandId'> & { commandId: string }>
  : never;

/** One object type (not an intersection) in editors and errors; optional fields stay optional. */
type Flat<T> = { [K in keyof T]: T[K] };

/**
 * The one definition of the command shape the domain decides on: the domain's `Command`
 * (libs/domain/src/commands.ts) is this type, imported type-only. See `toDomainCommand`.
 */
export type DomainCommand = WithCommandId<WireCommand>;
export const COMMAND_OPS = wireCommand.options.map((o) => o.shape.op.value);
