import { z } from 'zod';
import { id, instant, instantOrStar, memoryId, nonBlankText } from './primitives';

/**
 * Query-side requests (SPEC §3.2, §4). Query-string schemas take strings and
 * return parsed values; unknown parameters are rejected. Absent cut bounds mean
 * "request time" and are filled by the query service, not here.
 */

export const consistency = z.enum(['projection', 'replay']);

/** Non-negative integer given as a decimal string, parsed to a number. */
export const positionString = z
  .string()
  .regex(/^\d{1,16}$/, { error: 'must be a non-negative integer' })
  .transform((s, ctx) => {
    const n = Number(s);
    if (Number.isSafeInteger(n)) return n;
    ctx.addIssue({ code: 'custom', message: 'is too large', input: s });
    return z.NEVER;
  });

/** Read-your-writes (SPEC `minPosition`): every read of the read models takes it. */
const MIN_POSITION = { description: "a position this memory handed out (a write's `position`): wait (bounded) until the read models have it" };
const minPosition = positionString.optional().meta(MIN_POSITION);

/** The most items one page of a listing may hold. */
const PAGE_MAX = 1000;

/** The most ids one list parameter (`src`, `ids`) takes: a request line stays within what HTTP servers accept. */
export const MAX_LISTED_IDS = 100;

/**
 * Several ids in one query parameter, given once per id (`src=a&src=b`); a single one parses as a
 * list of one. Duplicates are kept out of the list.
 */
function idList(description: string) {
  return z
    .preprocess(
      (value) => (typeof value === 'string' ? [value] : value),
      z
        .array(id)
        .min(1)
        .max(MAX_LISTED_IDS, { error: `must name at most ${MAX_LISTED_IDS} ids` }),
    )
    .transform((ids) => [...new Set(ids)])
    .meta({ description: `${description}; repeat the parameter for several (at most ${MAX_LISTED_IDS})` });
}

/** The most facts `entities?include=facts` holds: the first page of its entities' facts (`facts.next` goes on). */
export const ENTITY_PAGE_FACTS = 1000;

/** A page size given as a decimal string: 1..PAGE.max. */
function pageSize(items: string) {
  return z
    .string()
    .regex(/^\d{1,4}$/, { error: `must be an integer from 1 to ${PAGE_MAX}` })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(1, { error: 'must be at least 1' })
        .max(PAGE_MAX, { error: `must be at most ${PAGE_MAX}` }),
    )
    .meta({ description: `how many ${items} one page holds (at most ${PAGE_MAX}); without it, all of them` });
}

/** The previous page's `next`: a listing sorted by id goes on after it. */
const after = (idName: string) => id.optional().meta({ description: `the previous page's \`next\`: this page starts after that ${idName}` });

export const factsQuery = z.strictObject({
  validAt: instantOrStar.optional(),
  recordedAt: instant.optional(),
  src: idList('facts from this entity (or an entity merged with it by then)').optional(),
  rel: id.optional(),
  dst: id.optional(),
  limit: pageSize('facts').optional(),
  after: after('factId'),
  include: z
    .preprocess((value) => (typeof value === 'string' ? [value] : value), z.array(z.enum(['entities', 'mentions'])).min(1))
    .transform((kinds) => [...new Set(kinds)])
    .optional()
    .meta({
      description:
        '`entities`: the answer also holds the entities its facts name (src and an entity dst), as the entities read shows them; ' +
        '`mentions`: the mentions its facts cite as evidence, as the mention read shows them; repeat the parameter for both',
    }),
  consistency: consistency.default('projection'),
  minPosition,
});

export const historyQuery = z.strictObject({ recordedAt: instant.optional(), minPosition });
/** Routes that take no query parameter still refuse unknown ones. */
const noParameters = z.strictObject({});
export const auditQuery = noParameters;
export const entityQuery = z.strictObject({ recordedAt: instant.optional(), minPosition });

export const eventsQuery = z.strictObject({
  validAt: instantOrStar.optional(),
  recordedAt: instant.optional(),
  entity: id.optional().meta({
    description:
      'events about this entity (or an entity merged with it by then): it takes part in them, or a fact of their evidence is from or to it',
  }),
  limit: pageSize('events').optional(),
  after: after('eventId'),
  consistency: consistency.default('projection'),
  minPosition,
});

/** Page size of a listing (a document's mentions, entities, episodes): what a reader gets when it does not say, and the most it may ask for. */
export const PAGE = { default: 100, max: PAGE_MAX } as const;

/** A page size with the default page. */
function pageLimit(items: string) {
  return pageSize(items)
    .default(PAGE.default)
    .meta({ description: `how many ${items} one page holds (default ${PAGE.default}, at most ${PAGE.max})` });
}

/** The episodes in a cut (SPEC §3.2: visible iff one of their events is; each lists only its visible events), a page at a time. */
export const episodesQuery = z.strictObject({
  validAt: instantOrStar.optional(),
  recordedAt: instant.optional(),
  limit: pageLimit('episodes'),
  after: after('episodeId'),
  consistency: consistency.default('projection'),
  minPosition,
});

/**
 * The topics in a cut (SPEC §5.4: visible iff one of their members is; each lists only its visible
 * members). `validAt` defaults to "*": only a validAt the reader gives keeps the topics whose window holds it.
 */
export const topicsQuery = z.strictObject({
  validAt: instantOrStar.optional().meta({ description: 'keeps the topics whose window holds it; default "*": every window' }),
  recordedAt: instant.optional(),
  limit: pageLimit('topics'),
  after: after('topicId'),
  consistency: consistency.default('projection'),
  minPosition,
});

/**
 * A document's mentions (SPEC §3 `RECORD_MENTION`; §5.1: a conversation's turns, `docId` = its sessionId), in
 * document order. Mentions have no valid time (SPEC §3.2), so `validAt` filters none of them: it is taken, and
 * echoed in the answer's cut, so one cut can be passed to every read.
 */
export const mentionsQuery = z.strictObject({
  docId: id,
  validAt: instantOrStar.optional(),
  recordedAt: instant.optional(),
  limit: pageLimit('mentions'),
  after: after('mention'),
  consistency: consistency.default('projection'),
  minPosition,
});

export const mentionQuery = z.strictObject({ recordedAt: instant.optional(), consistency: consistency.default('projection'), minPosition });

/**
 * The entities visible at `recordedAt` (SPEC §3.2), optionally found by name or alias and type, a page at
 * a time in entityId order. Entities have no valid time, so `validAt` filters none of them: it is taken,
 * and echoed in the answer's cut, so one cut can be passed to every read.
 */
export const entitiesQuery = z
  .strictObject({
    name: nonBlankText.optional().meta({
      description:
        'an entity name or alias, compared case-insensitively with whitespace normalised ("alice" finds "Alice"); ' +
        'names of entities merged into an entity find that entity',
      examples: ['Alice'],
    }),
    match: z
      .enum(['exact', 'prefix'])
      .default('exact')
      .meta({ description: '`exact`: the whole name; `prefix`: names that start with `name` ("ali" finds "Alice Smith")' }),
    type: nonBlankText.optional().meta({ description: 'only entities with this type (case-insensitive)', examples: ['person'] }),
    ids: idList('only the entities these ids name (an id merged away names the entity it joined)').optional(),
    validAt: instantOrStar.optional(),
    recordedAt: instant.optional(),
    limit: pageLimit('entities'),
    after: after('entityId'),
    include: z
      .literal('facts')
      .optional()
      .meta({
        description:
          `\`facts\`: the answer also holds the page's facts at the cut, as \`facts?src=\` (each entity of the page) ` +
          `\`&include=entities&limit=${ENTITY_PAGE_FACTS}\` answers them (a page of at most ${MAX_LISTED_IDS} entities, as \`src\` takes)`,
      }),
    factsPerEntity: pageSize('facts of each entity')
      .optional()
      .meta({
        description:
          'with `include=facts`: each entity of the page keeps only its first facts (by factId) of that read, and `facts.counts` ' +
          'says how many that read holds from each; a page that shows a few facts an entity gets them without the rest',
      }),
    consistency: consistency.default('projection'),
    minPosition,
  })
  .superRefine((v, ctx) => {
    // The facts' `next` goes on with `facts?src=`, which names at most that many entities.
    if (v.include === 'facts' && v.limit > MAX_LISTED_IDS)
      ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_LISTED_IDS} with include=facts`, path: ['limit'], input: v.limit });
    if (v.factsPerEntity !== undefined && v.include !== 'facts')
      ctx.addIssue({ code: 'custom', message: 'needs include=facts', path: ['factsPerEntity'], input: v.factsPerEntity });
  });

/** `[from, to)`; `to` defaults to the request time (changes since `from`); `to = from` is empty, not wrong. */
export const changesQuery = z
  .strictObject({
    from: instant,
    to: instant.optional(),
    limit: pageSize('changes')
      .optional()
      .meta({
        description:
          'at most this many changes, whole record instants only (at least the first, which may hold more): the answer is then the window ' +
          '[from, next), and `next` is the `from` of the following page; without it, every change of the window',
      }),
    include: z.literal('entities').optional().meta({
      description: "`entities`: the answer also holds the entities its changes' versions name, as the entities read shows them at the answer's `to`",
    }),
    minPosition,
  })
  .superRefine((v, ctx) => {
    if (v.to !== undefined && v.to < v.from) ctx.addIssue({ code: 'custom', message: 'must not be earlier than from', path: ['to'], input: v.to });
  });

export const searchRequest = z.strictObject({
  query: nonBlankText,
  validAt: instantOrStar.optional().meta({
    description:
      'valid time of the cut; default "*": everything believed at recordedAt, past included (the query\'s time words, else the present, rank first)',
  }),
  recordedAt: instant.optional().meta({ description: 'record time of the cut (default: now): what the memory believed then' }),
  // 0 is a cap like any other (nothing fits): an agent's budget left over can be 0.
  k: z.number().int().min(0).max(1000).default(10),
  tokenBudget: z.number().int().min(0).optional(),
  minPosition: z.number().int().min(0).optional().meta(MIN_POSITION), // int(): a safe integer
  tiers: z
    .array(z.enum(['hot', 'cold']))
    .min(1)
    .max(2)
    .default(['hot'])
    .meta({ description: 'the tiers searched (SPEC 5.4); default ["hot"]: cold items are left out unless asked for' }),
});

export const exportQuery = noParameters;
export const importQuery = noParameters;
export const memoriesQuery = noParameters;
export const accessQuery = noParameters;

/** Path parameters. */
export const memoryParams = z.strictObject({ memoryId });
export const factParams = z.strictObject({ memoryId, factId: id });
export const entityParams = z.strictObject({ memoryId, entityId: id });
export const mentionParams = z.strictObject({ memoryId, mentionId: id });

export type FactsQuery = z.output<typeof factsQuery>;
export type HistoryQuery = z.output<typeof historyQuery>;
export type EntityQuery = z.output<typeof entityQuery>;
export type EventsQuery = z.output<typeof eventsQuery>;
export type EpisodesQuery = z.output<typeof episodesQuery>;
export type TopicsQuery = z.output<typeof topicsQuery>;
export type EntitiesQuery = z.output<typeof entitiesQuery>;
export type MentionsQuery = z.output<typeof mentionsQuery>;
export type MentionQuery = z.output<typeof mentionQuery>;
export type ChangesQuery = z.output<typeof changesQuery>;
export type SearchRequest = z.output<typeof searchRequest>;
export type SearchRequestInput = z.input<typeof searchRequest>;
