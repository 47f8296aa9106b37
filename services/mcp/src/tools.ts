import type { ErasureSubject, MemoryClient } from '@memotrace/client';
import {
  EXTRACTION_MODES,
  MAX_CLAIMS,
  type CheckRequestInput,
  checkRequest,
  PAGE,
  MAX_BATCH,
  archiveEdge,
  defineRelation,
  id,
  instant,
  instantOrStar,
  link,
  literalDatatype,
  memoryId,
  mergeEntity,
  nonBlankText,
  nonEmptyText,
  recordMention,
  retroCorrect,
  searchRequest,
  turn,
  turnsRequest,
  upsertEdge,
  upsertEntity,
  upsertEpisode,
  upsertEvent,
  type WireCommandInput,
} from '@memotrace/contracts';
import { z } from 'zod';
import { type CallShape, resolveCommands } from './commands';
import { COMMAND_FIELDS, CREATE_MISSING, ENVELOPE, INTERVAL, LITERAL, MEMORY_ID, PARTICIPANT, READ, RESOLUTION_RULE } from './descriptions';
import { EntityResolver, ToolError } from './resolve';

/**
 * The memory as MCP tools. Input schemas are the contracts' command fields (minus `op`), each described
 * for a model (descriptions.ts: meaning and an example); where a tool takes more than the contract
 * (entity names where the DSL takes ids, createMissing, dstLiteral) its fields say so, and the tool
 * resolves them (resolve.ts) before it sends the DSL. The service re-validates every command
 * (refinements such as validTo > validFrom come back as INVALID_REQUEST tool errors) and enforces the
 * caller's API key.
 */

export interface MemoryTool {
  name: string;
  title: string;
  description: string;
  inputSchema: z.ZodObject;
  readOnly: boolean;
  /** It destroys what cannot be written back (an erasure). */
  destructive?: boolean;
  run(memory: MemoryClient, args: Record<string, unknown>): Promise<unknown>;
}

type Op = keyof typeof COMMAND_FIELDS;

const memoryField = { memoryId: memoryId.optional().describe(MEMORY_ID) };
const createMissing = z.boolean().optional().describe(CREATE_MISSING);

/** An entity given by name or id (ids are 1..128 characters, names up to 64 KiB: any non-empty text). */
const entityRef = nonEmptyText;

const literalValue = z
  .strictObject({
    literal: z.union([z.string(), z.number(), z.boolean()]).describe(LITERAL.literal),
    datatype: literalDatatype.optional().describe(LITERAL.datatype),
  })
  .describe(LITERAL.self);

const interval = z.strictObject({ from: instant.describe(INTERVAL.from), to: instant.nullable().optional().describe(INTERVAL.to) });

/** The contract's nested fields as the tools take them: documented to the leaves, entity references by name or id. */
const NESTED: Record<string, z.ZodType> = {
  src: entityRef,
  srcId: entityRef,
  dstId: entityRef,
  dst: z.union([entityRef, literalValue]),
  timeSpan: interval,
  window: interval,
  participants: z.array(z.strictObject({ entityId: entityRef.describe(PARTICIPANT.entityId), role: nonEmptyText.describe(PARTICIPANT.role) })),
};

/**
 * The fields of a contract command (minus `op`), each with its description; nested ones as NESTED (or
 * `overrides`, with their own description), optional where the contract's are.
 */
function commandFields(op: Op, schema: { shape: z.ZodRawShape }, overrides: Record<string, [z.ZodType, string]> = {}): z.ZodRawShape {
  const docs: Record<string, string> = { ...ENVELOPE, ...COMMAND_FIELDS[op] };
  const fields: Record<string, z.ZodType> = {};
  for (const [name, field] of Object.entries(schema.shape)) {
    if (name === 'op') continue;
    const [replacement, doc] = overrides[name] ?? [NESTED[name], docs[name]];
    if (!doc) throw new Error(`no description for ${op}.${name}`);
    const optional = (field as z.ZodType).safeParse(undefined).success;
    const base = replacement === undefined ? (field as z.ZodType) : optional ? replacement.optional() : replacement;
    fields[name] = base.describe(doc);
  }
  return fields;
}

/** A one-command tool's input: the command's fields plus `memoryId` and the tool's own fields. */
function commandInput(op: Op, schema: { shape: z.ZodRawShape }, extra: z.ZodRawShape = {}, overrides: Record<string, [z.ZodType, string]> = {}) {
  return z.strictObject({ ...memoryField, ...commandFields(op, schema, overrides), ...extra });
}

/** The batch's commands: every op, documented like the tools. */
const batchCommand = z.discriminatedUnion(
  'op',
  (
    [
      ['UPSERT_ENTITY', upsertEntity],
      ['MERGE_ENTITY', mergeEntity],
      ['DEFINE_RELATION', defineRelation],
      ['UPSERT_EDGE', upsertEdge],
      ['ARCHIVE_EDGE', archiveEdge],
      ['RETRO_CORRECT', retroCorrect],
      ['UPSERT_EVENT', upsertEvent],
      ['LINK', link],
      ['UPSERT_EPISODE', upsertEpisode],
      ['RECORD_MENTION', recordMention],
    ] as const
  ).map(([op, schema]) => z.strictObject({ op: z.literal(op).describe(COMMAND_FIELDS[op].op), ...commandFields(op, schema) })) as unknown as [
    z.ZodObject<{ op: z.ZodLiteral<Op> }>,
    ...z.ZodObject<{ op: z.ZodLiteral<Op> }>[],
  ],
);

/** Writes commands after resolving their entity references; the answer says how each was resolved. */
async function write(memory: MemoryClient, commands: WireCommandInput[], createMissing: unknown, shape: CallShape): Promise<unknown> {
  const resolver = new EntityResolver(memory, createMissing === true);
  const resolved = await resolveCommands(resolver, commands, shape);
  return { ...(await memory.commands(resolved)), resolved: resolver.resolved };
}

const ONE_COMMAND: Pick<CallShape, 'prefix'> = { prefix: () => '' };

/** A one-command tool whose arguments are the command's fields (and memoryId). */
function commandTool(name: string, title: string, description: string, op: Op, schema: { shape: z.ZodRawShape }): MemoryTool {
  return {
    name,
    title,
    description,
    inputSchema: commandInput(op, schema),
    readOnly: false,
    run: (memory, args) => write(memory, [{ ...args, op } as WireCommandInput], false, ONE_COMMAND),
  };
}

const cut = {
  validAt: instantOrStar.optional().describe(READ.validAt),
  recordedAt: instant.optional().describe(READ.recordedAt),
};

const factDst = z.union([entityRef, z.number(), z.boolean(), literalValue]);

export const MEMORY_TOOLS: readonly MemoryTool[] = [
  commandTool(
    'remember_entity',
    'Remember an entity',
    'Creates an entity (a person, organisation, place, thing) or adds aliases and types to it (UPSERT_ENTITY). Without entityId ' +
      'it goes by name: the entity that already has this name or alias is updated, so remembering "Alice" twice makes one entity. ' +
      'Facts can also create their entities (remember_fact with createMissing: true).',
    'UPSERT_ENTITY',
    upsertEntity,
  ),
  commandTool(
    'define_relation',
    'Define a relation',
    'Declares a relation\'s cardinality (DEFINE_RELATION). "one": a new fact supersedes the old one from its validFrom on, ' +
      'e.g. works_at: "Alice works at Beta from Wednesday" ends "Alice works at Acme" on Wednesday.',
    'DEFINE_RELATION',
    defineRelation,
  ),
  {
    name: 'remember_fact',
    title: 'Remember a fact',
    description:
      'Asserts a fact src -rel-> dst, true from validFrom (UPSERT_EDGE), e.g. {src: "Alice", rel: "works_at", dst: "Acme", ' +
      'validFrom: "2024-05-06T00:00:00Z", createMissing: true}. src and an entity dst are given by name or id; a value dst is a number, ' +
      'true/false, {"literal": ...}, or text with dstLiteral: true. The answer lists how each name was resolved (resolved).',
    inputSchema: commandInput(
      'UPSERT_EDGE',
      upsertEdge,
      {
        createMissing,
        dstLiteral: z
          .boolean()
          .optional()
          .describe(
            'true: a text dst that names no entity is stored as a text value (e.g. dst "climbing" with rel "hobby") instead of failing. ' +
              'A dst that names an entity still links to it; {"literal": "climbing"} is a value whatever entities exist.',
          ),
      },
      {
        dst: [
          factDst,
          'The object: an entity by name or id, e.g. "Acme" (resolved as src; created with createMissing), or a value: a number (e.g. 42), ' +
            'true/false, {"literal": "climbing"}, or text with dstLiteral: true.',
        ],
      },
    ),
    readOnly: false,
    run: (memory, { createMissing, dstLiteral, ...args }) => {
      const dst = typeof args['dst'] === 'number' || typeof args['dst'] === 'boolean' ? { literal: args['dst'] } : args['dst'];
      return write(memory, [{ ...args, dst, op: 'UPSERT_EDGE' } as WireCommandInput], createMissing, {
        ...ONE_COMMAND,
        dstLiteral: dstLiteral === true,
        literalHint: 'repeat with dstLiteral: true to store it as a text value (or give dst as {"literal": ...})',
      });
    },
  },
  {
    name: 'remember_event',
    title: 'Remember an event',
    description:
      'Records an event (UPSERT_EVENT): a summary, a time span, its participants (by name or id, with their roles) and the facts ' +
      'that evidence it, e.g. {summary: "Alice moved to Beta", timeSpan: {from: "2024-05-08T00:00:00Z"}, participants: ' +
      '[{entity: "Alice", role: "employee"}]}.',
    inputSchema: commandInput(
      'UPSERT_EVENT',
      upsertEvent,
      { createMissing },
      {
        participants: [
          z.array(z.strictObject({ entity: entityRef.describe(PARTICIPANT.entity), role: nonEmptyText.describe(PARTICIPANT.role) })).optional(),
          'Who took part and how, e.g. [{"entity": "Alice", "role": "employee"}, {"entity": "Beta", "role": "employer"}].',
        ],
        includesFacts: [z.array(id).max(MAX_BATCH).optional(), `${COMMAND_FIELDS.UPSERT_EVENT.includesFacts} Omit for none.`],
      },
    ),
    readOnly: false,
    run: (memory, { createMissing, participants, includesFacts, ...args }) => {
      const command = {
        ...args,
        op: 'UPSERT_EVENT',
        includesFacts: includesFacts ?? [],
        ...(participants === undefined
          ? {}
          : { participants: (participants as { entity: string; role: string }[]).map((p) => ({ entityId: p.entity, role: p.role })) }),
      };
      return write(memory, [command as WireCommandInput], createMissing, ONE_COMMAND);
    },
  },
  commandTool(
    'correct_fact',
    'Correct a fact',
    'Corrects when a fact was true (RETRO_CORRECT), e.g. {factId: "alice-acme", validTo: "2024-05-08T00:00:00Z"}: a new version ' +
      'with the corrected validity; the old one stays in the history.',
    'RETRO_CORRECT',
    retroCorrect,
  ),
  commandTool(
    'retract_fact',
    'Retract a fact',
    'The memory stops believing a fact from now on (ARCHIVE_EDGE), e.g. {factId: "alice-acme"}; its history and audit keep it.',
    'ARCHIVE_EDGE',
    archiveEdge,
  ),
  {
    name: 'remember_batch',
    title: 'Remember a batch of commands',
    description:
      'Applies up to 1000 DSL commands atomically (all or nothing), e.g. two entities and the fact between them. Entities are named ' +
      'as in the other tools (src, dst, participants, merges: by name or id; an UPSERT_ENTITY without entityId goes by name), and an ' +
      'entity an earlier command of the batch declares is known to the commands after it. Literal values are {"literal": ...}.',
    inputSchema: z.strictObject({
      ...memoryField,
      commands: z
        .array(batchCommand)
        .min(1)
        .max(MAX_BATCH)
        .describe(
          'The commands, in order, e.g. [{"op": "UPSERT_ENTITY", "name": "Alice"}, {"op": "UPSERT_EDGE", "src": "Alice", "rel": ' +
            '"works_at", "dst": "Acme"}]. Each has an "op" and that op\'s fields.',
        ),
      createMissing,
    }),
    readOnly: false,
    run: (memory, { commands, createMissing }) =>
      write(memory, commands as WireCommandInput[], createMissing, {
        prefix: (i) => `commands[${i}].`,
        literalHint: 'give dst as {"literal": ...} for a value',
      }),
  },
  {
    name: 'read_facts',
    title: 'Read facts at a cut',
    description:
      'The facts true at validAt as the memory believed at recordedAt (both default to now), optionally only those about src, ' +
      'with relation rel, or with object dst, e.g. {src: "Alice", rel: "works_at", validAt: "2024-05-07T12:00:00Z"}. Facts name ' +
      'entities by id; names maps each of those ids to its name.',
    inputSchema: z.strictObject({
      ...memoryField,
      ...cut,
      src: entityRef.optional().describe(`Only facts about this entity, e.g. "Alice". ${RESOLUTION_RULE} (Never created here.)`),
      rel: id.optional().describe('Only this relation, e.g. "works_at".'),
      dst: nonEmptyText
        .optional()
        .describe('Only facts with this object: an entity by name or id (e.g. "Acme"), or the text of a value (e.g. "climbing", "42").'),
      consistency: z.enum(['projection', 'replay']).optional().describe(READ.consistency),
      minPosition: z.number().int().nonnegative().optional().describe(READ.minPosition),
    }),
    readOnly: true,
    run: async (memory, { memoryId: _m, src, dst, ...filter }) => {
      const resolver = new EntityResolver(memory);
      const recordedAt = filter['recordedAt'] as string | undefined;
      const entity = async (field: string, value: unknown, orLiteral: boolean) => {
        if (value === undefined) return {};
        const resolved = await resolver.resolve({ field, value: value as string, recordedAt, orLiteral });
        return { [field]: 'literal' in resolved ? resolved.literal : resolved.entityId };
      };
      const answer = await memory.facts({ ...filter, ...(await entity('src', src, false)), ...(await entity('dst', dst, true)) });
      return { ...answer, names: await namesOf(memory, answer.facts, answer.cut.recordedAt), resolved: resolver.resolved };
    },
  },
  {
    name: 'find_entities',
    title: 'Find entities',
    description:
      'Finds entities by name or alias (ignoring case and extra spaces), optionally by type, as the memory knew them at recordedAt ' +
      '(default now), e.g. {name: "alice"} or {name: "ali", match: "prefix"}; without a name, lists them all, a page at a time. ' +
      'Each has its id, name, aliases, types and the entities merged into it.',
    inputSchema: z.strictObject({
      ...memoryField,
      name: nonBlankText.optional().describe('A name or alias to look for, e.g. "Alice" (finds "alice" and "ALICE" too). Omit to list all.'),
      match: z
        .enum(['exact', 'prefix'])
        .optional()
        .describe('"exact" (default): the whole name; "prefix": names that start with it, e.g. "ali" finds "Alice" and "Alicia Keys".'),
      type: nonBlankText.optional().describe('Only entities of this type, e.g. "person".'),
      recordedAt: cut.recordedAt,
      limit: z.number().int().min(1).max(PAGE.max).optional().describe(`At most this many, e.g. 20 (default ${PAGE.default}, at most ${PAGE.max}).`),
      after: id.optional().describe('For the next page: the previous answer\'s "next", e.g. "alice".'),
    }),
    readOnly: true,
    run: (memory, { memoryId: _m, ...filter }) => memory.entities(filter as Parameters<MemoryClient['entities']>[0]),
  },
  {
    name: 'remember_turns',
    title: 'Remember conversation turns',
    description:
      'Records dialog turns of one session as they were said, e.g. {sessionId: "chat-7", turns: [{speaker: "Alice", text: "I moved to ' +
      'Lyon last month", at: "2024-05-11T18:30:00Z"}]}. With extraction "sync" (default) the server derives entities, facts and events ' +
      'from what the turns state (relative times like "last month" resolved against `at`) and records them with the turns in one ' +
      'atomic write; "off" records the turns only. A turn sent again is a duplicate and derives nothing new.',
    inputSchema: z.strictObject({
      ...memoryField,
      sessionId: turnsRequest.shape.sessionId.describe('The conversation, e.g. "chat-7": its turns are one document of mentions.'),
      turns: z
        .array(
          z.strictObject({
            turnId: turn.shape.turnId.describe('An id for the turn, e.g. "chat-7:12". Omit to derive it from session, time, speaker and text.'),
            speaker: turn.shape.speaker.describe('Who said it, e.g. "Alice".'),
            text: turn.shape.text.describe('What was said, e.g. "I moved to Lyon last month".'),
            at: turn.shape.at.describe('When it was said, with an offset, e.g. "2024-05-11T18:30:00Z".'),
          }),
        )
        .min(1)
        .max(MAX_BATCH)
        .describe(
          `The turns in the order they were said (1 to ${MAX_BATCH}), e.g. [{"speaker": "Alice", "text": "Hi!", "at": "2024-05-11T18:30:00Z"}].`,
        ),
      extraction: z
        .enum(EXTRACTION_MODES)
        .optional()
        .describe('e.g. "sync" (default): derive what the turns state and record it with them; "async": derive later; "off": turns only.'),
    }),
    readOnly: false,
    run: (memory, { memoryId: _m, ...request }) => memory.turns(request as Parameters<MemoryClient['turns']>[0]),
  },
  {
    name: 'search_memory',
    title: 'Search the memory',
    description:
      'A ranked, auditable subgraph (events, facts, mentions, episodes) for a question in words, visible at the cut, within a token ' +
      'budget, e.g. {query: "where does Alice work"}. A mention\'s text starts with the day it was said, e.g. "[8 May 2023] Alice: ...".',
    inputSchema: z.strictObject({
      ...memoryField,
      query: nonBlankText.describe(
        'What to look for, in words, time words included, e.g. "where does Alice work" or "what did Tom say about his knee last week".',
      ),
      validAt: instantOrStar
        .optional()
        .describe(
          'The world time to search at, e.g. "2024-05-07T12:00:00Z". Omit to search the whole timeline ("*"): past items are found, ' +
            'and the time words of the query, else the present, rank first.',
        ),
      recordedAt: cut.recordedAt,
      k: searchRequest.shape.k.describe('At most this many items of each kind, e.g. 5 (default 10).'),
      tokenBudget: searchRequest.shape.tokenBudget.describe('A cap on the total tokens of the items, e.g. 2000.'),
      tiers: searchRequest.shape.tiers.describe(
        'Which tiers to search, e.g. ["hot", "cold"] to find items that cooled for lack of use too; default ["hot"] leaves them out.',
      ),
    }),
    readOnly: true,
    run: (memory, { memoryId: _m, ...request }) => memory.search(request as Parameters<MemoryClient['search']>[0]),
  },
  {
    name: 'check_claims',
    title: 'Check claims before answering',
    description:
      'Checks what you are about to say against the memory at a cut, before you say it: give your draft answer as `text` (e.g. ' +
      '{text: "Alice works at Acme since Monday"}, or with speaker for "I") or `claims` (e.g. {claims: [{src: "Alice", rel: ' +
      '"works_at", dst: "Acme"}]}). Each claim gets one verdict: "supported" (the memory holds it then), "contradicted" (a ' +
      'relation with one value at a time holds another), "outdated" (it held, but ended by then), "not_yet_valid" (it starts ' +
      'later), "retracted" (the memory believed it once and no longer does), "unknown"; with the fact versions it rests on. Say ' +
      'what is supported; correct what is contradicted, outdated or not yet valid; do not state what is retracted or unknown as fact.',
    inputSchema: z.strictObject({
      ...memoryField,
      text: checkRequest.shape.text.describe('Your draft answer, e.g. "Alice moved to Porto in May and works at Acme".'),
      speaker: checkRequest.shape.speaker.describe('Who "I" is in text: an entity by name or id, e.g. "Alice".'),
      claims: z
        .array(
          z.strictObject({
            src: entityRef.describe(`Who or what the claim is about, e.g. "Alice". ${RESOLUTION_RULE}`),
            rel: id.describe('The relation, e.g. "works_at".'),
            dst: factDst.describe('The value: an entity by name or id (e.g. "Acme"), a number, a boolean, or {"literal": ...}.'),
            validAt: instant.optional().describe('When this claim is about, e.g. "2024-05-07T12:00:00Z"; default the call\'s validAt.'),
          }),
        )
        .min(1)
        .max(MAX_CLAIMS)
        .optional()
        .describe(`The claims (1 to ${MAX_CLAIMS}), instead of text, e.g. [{"src": "Alice", "rel": "works_at", "dst": "Acme"}].`),
      ...cut,
      consistency: z.enum(['projection', 'replay']).optional().describe(READ.consistency),
    }),
    readOnly: true,
    run: async (memory, { memoryId: _m, claims, ...rest }) => {
      if (claims === undefined) return memory.check(rest as CheckRequestInput);
      // Names resolve as the other tools resolve them; a src naming no entity stays as given (its claims are unknown), a dst is then a value.
      const resolver = new EntityResolver(memory);
      const recordedAt = rest['recordedAt'] as string | undefined;
      const entity = async (field: string, value: string, orLiteral: boolean) => {
        try {
          const found = await resolver.resolve({ field, value, recordedAt, orLiteral });
          return 'entityId' in found ? found.entityId : { literal: found.literal };
        } catch (error) {
          if (error instanceof ToolError) return value;
          throw error;
        }
      };
      const resolved = [];
      for (const [i, c] of (claims as { src: string; rel: string; dst: unknown; validAt?: string }[]).entries()) {
        const src = await entity(`claims[${i}].src`, c.src, false);
        const dst =
          typeof c.dst === 'string' ? await entity(`claims[${i}].dst`, c.dst, true) : typeof c.dst === 'object' ? c.dst : { literal: c.dst };
        resolved.push({ ...c, src, dst });
      }
      return { ...(await memory.check({ ...(rest as object), claims: resolved } as CheckRequestInput)), resolved: resolver.resolved };
    },
  },
  {
    name: 'list_topics',
    title: 'What went on over a period',
    description:
      'The durative topics of the memory (what someone was doing about something over weeks or months), each with its window ' +
      '{from, to}, a title, a summary and the mentions, events and facts it gathers, e.g. {} for all of them, or {validAt: ' +
      '"2024-05-07T12:00:00Z"} for those whose window holds that time. Use it for "how long", "since when" and "what has X been ' +
      'doing about Y" questions; consolidate derives topics.',
    inputSchema: z.strictObject({
      ...memoryField,
      validAt: instantOrStar.optional().describe('Only the topics whose window holds this time, e.g. "2024-05-07T12:00:00Z"; omit for every topic.'),
      recordedAt: cut.recordedAt,
      limit: z.number().int().min(1).max(1000).optional().describe('At most this many topics, e.g. 20 (default 100).'),
      after: id.optional().describe('The previous answer\'s `next`, for the next page, e.g. "topic-3f2a".'),
    }),
    readOnly: true,
    run: (memory, { memoryId: _m, ...options }) => memory.topics(options as Parameters<MemoryClient['topics']>[0]),
  },
  {
    name: 'consolidate',
    title: "Run the memory's evolution now",
    description:
      'Consolidates the memory now (it also happens in the background): items unused for long cool out of search by the ' +
      "memory's tier policy, low-salience events of the same people and month become episodes, related turns, statements " +
      'and events over time become topics, and near-duplicate entities come back as merge suggestions {srcId, dstId, score, ' +
      'why} (never merged: remember_batch with {"op": "MERGE_ENTITY", "srcId", "dstId"} accepts one). Running it twice appends ' +
      'nothing new. Takes no arguments but the memory, e.g. {}.',
    inputSchema: z.strictObject({ ...memoryField }),
    readOnly: false,
    run: (memory) => memory.consolidate(),
  },
  {
    name: 'fact_history',
    title: "A fact's history",
    description: 'Every version of a fact with its valid and record intervals, oldest first, e.g. {factId: "alice-acme"}.',
    inputSchema: z.strictObject({
      ...memoryField,
      factId: id.describe('The fact, e.g. "alice-acme" (read_facts and remember_fact show fact ids).'),
      recordedAt: instant.optional().describe('Only what was recorded by then, e.g. "2024-05-08T12:00:00Z". Omit for everything.'),
    }),
    readOnly: true,
    run: (memory, args) =>
      memory.history(args['factId'] as string, args['recordedAt'] === undefined ? {} : { recordedAt: args['recordedAt'] as string }),
  },
  {
    name: 'fact_audit',
    title: "A fact's audit trail",
    description: 'Every event that touched a fact, in log order, with who (actor), why (reason) and when, e.g. {factId: "alice-acme"}.',
    inputSchema: z.strictObject({ ...memoryField, factId: id.describe('The fact, e.g. "alice-acme" (read_facts and remember_fact show fact ids).') }),
    readOnly: true,
    run: (memory, args) => memory.audit(args['factId'] as string),
  },
];

/** The erasure subjects, by id: an erasure never resolves a name (it would erase whatever entity the name finds). */
const ERASURE_SUBJECTS = {
  entityId: 'An entity, e.g. "alice": its names, aliases and types, and the content of every fact and event naming it.',
  factId: 'A fact, e.g. "alice-acme": its literal value and its source.',
  mentionId: 'A mention, e.g. "chat-1:3": its text and speaker.',
  docId: 'A document (a conversation), e.g. "chat-1": the text and speaker of every one of its mentions.',
} as const;

/**
 * ERASE (SPEC §5.2), for admin keys only: the server lists it only to a caller whose key is an admin
 * key (or when no keys are configured), and the service refuses it (403) to any other.
 */
export const ERASE_TOOL: MemoryTool = {
  name: 'erase',
  title: 'Erase content (admin)',
  description:
    "Erases a subject's content at every record time, for good (ERASE): name exactly one of entityId, factId, mentionId, docId, " +
    'and the reason, e.g. {entityId: "alice", reason: "she asked to be forgotten"}. Names, aliases, types, values, sources, ' +
    'summaries, mention texts and speakers become null and are never found again; ids, times and the graph stay, and the audit ' +
    'keeps who erased what, when and why. It cannot be undone; later writes may name the subject again with new content.',
  inputSchema: z.strictObject({
    ...memoryField,
    ...Object.fromEntries(Object.entries(ERASURE_SUBJECTS).map(([field, doc]) => [field, id.optional().describe(doc)])),
    reason: nonBlankText.describe('Why, e.g. "data subject request #42": kept in the audit trail with the erasure.'),
    commandId: id.optional().describe(ENVELOPE.commandId),
  }),
  readOnly: false,
  destructive: true,
  run: (memory, { reason, commandId, ...args }) => {
    const named = Object.keys(ERASURE_SUBJECTS).filter((field) => args[field] !== undefined);
    if (named.length !== 1) throw new ToolError('INVALID_REQUEST: name exactly one of entityId, factId, mentionId, docId');
    const subject = { [named[0]!]: args[named[0]!] } as ErasureSubject;
    return memory.erase(subject, reason as string, commandId === undefined ? {} : { commandId: commandId as string });
  },
};

/** Entity ids named by these facts (src, entity dst) whose names a read shows, at most. */
const MAX_NAMES = 100;

/** The name of each entity the facts name, as of the cut: the model reads ids it was never told. */
async function namesOf(memory: MemoryClient, facts: { src: string; dst: unknown }[], recordedAt: string): Promise<Record<string, string>> {
  const ids = [...new Set(facts.flatMap((f) => (typeof f.dst === 'string' ? [f.src, f.dst] : [f.src])))].slice(0, MAX_NAMES);
  const names = await Promise.all(ids.map((entityId) => memory.entity(entityId, { recordedAt }).then((e) => [entityId, e.name] as const)));
  return Object.fromEntries(names);
}
