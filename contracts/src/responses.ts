import { z } from 'zod';
import { literalDatatype } from './literals';
import { canonicalInstant } from './primitives';
import { ENTITY_PAGE_FACTS } from './queries';

/**
 * Response bodies (SPEC §4). Instants are canonical UTC with milliseconds; `null`
 * interval ends are open. Used for the OpenAPI document and to check responses in tests.
 */

const instantOut = canonicalInstant;

export const commandStatus = z.enum(['applied', 'duplicate', 'unchanged']);

export const commandResult = z.strictObject({
  commandId: z.string(),
  status: commandStatus,
  recordedAt: instantOut,
  ids: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
});

/** Positions are per memory: its log's length after a write (a consistency token for `minPosition`). */
export const memoryPosition = (description: string) => z.number().int().nonnegative().meta({ description });

export const commandsResponse = z.strictObject({
  position: memoryPosition("the memory's position after this batch (its log's length): pass it as minPosition to read your writes"),
  results: z.array(commandResult),
});

export const literalOut = z.strictObject({
  literal: z.union([z.string(), z.number(), z.boolean()]),
  datatype: literalDatatype,
});

/** Where an item lives (SPEC 5.4): hot items are searched, cold ones only when a search asks for them. */
export const tier = z.enum(['hot', 'cold']);

export const factVersion = z.strictObject({
  factId: z.string(),
  src: z.string(),
  rel: z.string(),
  dst: z.union([z.string(), literalOut]),
  validFrom: instantOut,
  validTo: instantOut.nullable(),
  recordedFrom: instantOut,
  recordedTo: instantOut.nullable(),
  confidence: z.number().min(0).max(1).nullable(),
  evidence: z.array(z.string()),
  source: z.string().nullable(),
  tier: tier.optional().meta({
    description: 'facts, history and check answers: "cold" when the fact has cooled (SPEC 5.4); every other field is as for a hot one',
  }),
});

export const cut = z.strictObject({
  validAt: z.union([z.literal('*'), instantOut]),
  recordedAt: instantOut,
});

const next = (description: string) => z.string().nullable().meta({ description });
const NEXT_PAGE = "pass as `after` (with this answer's cut.recordedAt) for the next page; null when this page is the last (always, without `limit`)";

export const historyResponse = z.strictObject({ factId: z.string(), versions: z.array(factVersion) });

export const auditEvent = z.strictObject({
  position: memoryPosition("the memory's position right after this event (the same in an imported copy)"),
  type: z.string(),
  recordedAt: instantOut,
  commandId: z.string(),
  actor: z.string().nullable(),
  reason: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
});

export const auditResponse = z.strictObject({ factId: z.string(), events: z.array(auditEvent) });

export const entityResponse = z.strictObject({
  entityId: z.string(),
  name: z.string(),
  names: z.array(z.string()),
  aliases: z.array(z.string()),
  types: z.array(z.string()),
  merges: z.array(z.strictObject({ entityId: z.string(), into: z.string(), recordedAt: instantOut })),
  recordedFrom: instantOut,
});

/** One mention (SPEC §3 `RECORD_MENTION`): recorded once, it never changes. */
export const mentionView = z.strictObject({
  mentionId: z.string(),
  docId: z.string(),
  text: z.string(),
  speaker: z.string().nullable(),
  occurredAt: instantOut.nullable(),
  recordedFrom: instantOut,
});

export const factsResponse = z.strictObject({
  cut,
  source: z.enum(['projection', 'replay']),
  facts: z.array(factVersion),
  next: next(NEXT_PAGE),
  entities: z
    .array(entityResponse)
    .optional()
    .meta({ description: "with `include=entities`: the entities the facts name, sorted by entityId, each as at the cut's record time" }),
  mentions: z
    .array(mentionView)
    .optional()
    .meta({ description: "with `include=mentions`: the mentions the facts cite as evidence, sorted by mentionId, as at the cut's record time" }),
});

/** `GET /v1/memories/{memoryId}/entities`: a page of the entities visible in the cut, sorted by entityId. */
export const entitiesResponse = z.strictObject({
  cut,
  source: z.enum(['projection', 'replay']),
  entities: z.array(entityResponse),
  next: next("pass as `after` (with this answer's cut.recordedAt) for the next page; null when this page is the last"),
  facts: factsResponse
    .pick({ facts: true, next: true, entities: true })
    .required({ entities: true })
    .extend({
      counts: z
        .record(z.string(), z.number().int().nonnegative())
        .optional()
        .meta({
          description:
            'with `factsPerEntity`: how many facts the read holds from each entity of the page (all its facts at the cut when `next` is null), ' +
            'of which `facts` lists the first `factsPerEntity`',
        }),
    })
    .optional()
    .meta({
      description:
        'with `include=facts`: the first page of the facts at the cut from the entities of this page, with the entities they name, ' +
        `as \`facts?src=\` (each of them) \`&include=entities&limit=${ENTITY_PAGE_FACTS}\` answers them; its \`next\` goes on with that read`,
    }),
});

export const eventView = z.strictObject({
  eventId: z.string(),
  summary: z.string(),
  timeSpan: z.strictObject({ from: instantOut, to: instantOut.nullable() }),
  participants: z.array(z.strictObject({ entityId: z.string(), role: z.string() })),
  includesFacts: z.array(z.string()),
  recordedFrom: instantOut,
});

export const eventsResponse = z.strictObject({ cut, source: z.enum(['projection', 'replay']), events: z.array(eventView), next: next(NEXT_PAGE) });

/** An episode in a cut (SPEC §3.2): `events` lists only its events visible at the cut's record time, in its own order. */
export const episodeView = z.strictObject({
  episodeId: z.string(),
  title: z.string(),
  window: z.strictObject({ from: instantOut, to: instantOut.nullable() }),
  events: z.array(z.string()),
  recordedFrom: instantOut,
});

/** `GET /v1/memories/{memoryId}/episodes`: a page of the episodes visible in the cut, sorted by episodeId. */
export const episodesResponse = z.strictObject({
  cut,
  source: z.enum(['projection', 'replay']),
  episodes: z.array(episodeView),
  next: next("pass as `after` (with this answer's cut.recordedAt) for the next page; null when this page is the last"),
});

/** A durative topic in a cut (SPEC §5.4): `members` lists only its members visible at the cut's record time, in its own order. */
export const topicView = z.strictObject({
  topicId: z.string(),
  title: z.string().nullable().meta({ description: "null when erased: a member's content was (SPEC 5.2)" }),
  summary: z.string().nullable(),
  window: z.strictObject({ from: instantOut, to: instantOut.nullable() }),
  members: z.array(z.string()),
  recordedFrom: instantOut,
  erased: z.literal(true).optional(),
});

/** `GET /v1/memories/{memoryId}/topics`: the topics visible in the cut, sorted by topicId. */
export const topicsResponse = z.strictObject({
  cut,
  source: z.enum(['projection', 'replay']),
  topics: z.array(topicView),
  next: next("pass as `after` (with this answer's cut.recordedAt) for the next page; null when this page is the last"),
});

export const mentionsResponse = z.strictObject({
  cut,
  source: z.enum(['projection', 'replay']),
  docId: z.string(),
  mentions: z.array(mentionView).meta({
    description: 'in document order: by occurredAt (mentions without one last), then by mentionId in natural order (D1:9 before D1:10)',
  }),
  next: next("pass as `after` (with this answer's cut.recordedAt) for the next page; null when this page ends the document"),
});

export const factChange = z.strictObject({
  change: z.enum(['opened', 'closed']),
  at: instantOut,
  version: factVersion,
});

export const changesResponse = z.strictObject({
  from: instantOut,
  to: instantOut.meta({ description: 'the end of the window answered: with `limit`, where this page ends' }),
  changes: z.array(factChange),
  next: instantOut.nullable().meta({ description: 'with `limit`, the `from` of the following page (pass the same `to`); null when none follows' }),
  entities: z
    .array(entityResponse)
    .optional()
    .meta({ description: "with `include=entities`: the entities the versions name, sorted by entityId, each as at the answer's `to`" }),
});

export const itemKind = z.enum(['event', 'fact', 'mention', 'episode']);
export type SearchItemKind = z.output<typeof itemKind>;

export const searchItem = z.strictObject({
  kind: itemKind,
  id: z.string(),
  text: z.string(),
  score: z.number(),
  tokens: z.number().int().nonnegative(),
  recordedFrom: instantOut,
  validFrom: instantOut.optional(),
  validTo: instantOut.nullable().optional(),
  occurredAt: instantOut.optional(),
  evidence: z.array(z.strictObject({ kind: itemKind, id: z.string() })),
  salience: z
    .number()
    .min(0)
    .max(1)
    .meta({ description: 'how much the item matters to the memory now (SPEC 5.4; docs/evolution.md gives the formula)' }),
  tier: tier.optional().meta({ description: 'present on facts, events and mentions: "cold" only when `tiers` asked for cold items' }),
});

export const searchResponse = z.strictObject({
  cut,
  items: z.array(searchItem),
  tokens: z.number().int().nonnegative(),
  /**
   * Items of the cut whose text has no vector yet (the embedder works in the background): search
   * never waits for one, and ranks these by BM25 alone. Absent when search runs without vectors.
   */
  unembedded: z.number().int().nonnegative().optional(),
});

export const healthResponse = z.object({ status: z.string() });

/** One memory of `GET /v1/memories` (SPEC §5.0): a memory exists from its first accepted command. */
export const memorySummary = z.strictObject({
  memoryId: z.string(),
  position: memoryPosition("the memory's position (its log's length), as its last write handed it out"),
  latestRecordedAt: instantOut,
});

/** `GET /v1/memories`: the memories the caller may read, sorted by memoryId. */
export const memoriesResponse = z.strictObject({ memories: z.array(memorySummary) });

/** `DELETE /v1/memories/{memoryId}` (SPEC §5.2): the memory is gone; its id names an empty memory. */
export const memoryDeletedResponse = z.strictObject({
  memoryId: z.string(),
  deleted: z.literal(true),
  records: z.number().int().positive().meta({ description: 'how many log records went with the memory' }),
});

/** `GET /v1/access`: what the key of the request may do, so a client can offer only that. */
export const accessResponse = z.strictObject({
  accessControl: z.boolean().meta({ description: 'false when the operator configured no keys (loopback only): then everything is allowed' }),
  keyId: z.string().nullable().meta({ description: "the key's id, the `actor` of its commands; null without access control" }),
  access: z
    .enum(['read', 'write', 'admin'])
    .meta({ description: '`read`: GET and search; `write`: also commands; `admin`: also ERASE and deleting a memory' }),
  memories: z.array(z.string()).meta({ description: 'the memories it is scoped to; `["*"]`: all of them' }),
});

export type CommandResult = z.output<typeof commandResult>;
export type CommandsResponse = z.output<typeof commandsResponse>;
export type FactVersion = z.output<typeof factVersion>;
export type Cut = z.output<typeof cut>;
export type FactsResponse = z.output<typeof factsResponse>;
export type HistoryResponse = z.output<typeof historyResponse>;
export type AuditEvent = z.output<typeof auditEvent>;
export type AuditResponse = z.output<typeof auditResponse>;
export type EntityResponse = z.output<typeof entityResponse>;
export type EntitiesResponse = z.output<typeof entitiesResponse>;
export type EventView = z.output<typeof eventView>;
export type EventsResponse = z.output<typeof eventsResponse>;
export type EpisodeView = z.output<typeof episodeView>;
export type EpisodesResponse = z.output<typeof episodesResponse>;
export type TopicView = z.output<typeof topicView>;
export type TopicsResponse = z.output<typeof topicsResponse>;
export type AccessResponse = z.output<typeof accessResponse>;
export type MentionView = z.output<typeof mentionView>;
export type MentionsResponse = z.output<typeof mentionsResponse>;
export type FactChange = z.output<typeof factChange>;
export type ChangesResponse = z.output<typeof changesResponse>;
export type SearchItem = z.output<typeof searchItem>;
export type SearchResponse = z.output<typeof searchResponse>;
export type HealthResponse = z.output<typeof healthResponse>;
export type MemorySummary = z.output<typeof memorySummary>;
export type MemoriesResponse = z.output<typeof memoriesResponse>;
export type MemoryDeletedResponse = z.output<typeof memoryDeletedResponse>;
