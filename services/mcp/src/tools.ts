import type { MemoryClient } from '@memotrace/client';
import {
  archiveEdge,
  commandsRequest,
  defineRelation,
  id,
  instant,
  instantOrStar,
  memoryId,
  nonBlankText,
  retroCorrect,
  searchRequest,
  upsertEdge,
  upsertEntity,
  upsertEvent,
  type WireCommandInput,
} from '@memotrace/contracts';
import { z } from 'zod';

/**
 * The memory as MCP tools. Input schemas are the contracts' own field
 * schemas (minus `op`), so the JSON Schemas an agent sees match the HTTP contract;
 * the service re-validates every command (refinements such as validTo > validFrom
 * come back as INVALID_REQUEST tool errors) and enforces the caller's API key.
 */

export interface MemoryTool {
  name: string;
  title: string;
  description: string;
  inputSchema: z.ZodObject;
  readOnly: boolean;
  run(memory: MemoryClient, args: Record<string, unknown>): Promise<unknown>;
}

const memoryField = {
  memoryId: memoryId.optional().describe("the memory to use; default: the server's configured memory (MEMOTRACE_MEMORY or ?memory=)"),
};

/** A command's fields without `op`, plus `memoryId`. */
function commandInput(schema: { shape: z.ZodRawShape }): z.ZodObject {
  const { op: _op, ...fields } = schema.shape;
  return z.strictObject({ ...memoryField, ...fields });
}

function commandTool(name: string, title: string, description: string, op: WireCommandInput['op'], schema: { shape: z.ZodRawShape }): MemoryTool {
  return {
    name,
    title,
    description,
    inputSchema: commandInput(schema),
    readOnly: false,
    run: (memory, args) => memory.commands([{ ...args, op } as WireCommandInput]),
  };
}

const cut = {
  validAt: instantOrStar.optional().describe('valid time of the cut (default: now; "*" = any validity)'),
  recordedAt: instant.optional().describe('record time of the cut (default: now): what the memory believed then'),
};

export const MEMORY_TOOLS: readonly MemoryTool[] = [
  commandTool(
    'remember_entity',
    'Remember an entity',
    'Creates an entity (person, organisation, thing) or adds aliases/types to it (UPSERT_ENTITY). Facts need their entities first.',
    'UPSERT_ENTITY',
    upsertEntity,
  ),
  commandTool(
    'define_relation',
    'Define a relation',
    'Declares a relation\'s cardinality (DEFINE_RELATION). "one": a new fact supersedes the old one from its validFrom on (e.g. works_at).',
    'DEFINE_RELATION',
    defineRelation,
  ),
  commandTool(
    'remember_fact',
    'Remember a fact',
    'Asserts a fact src -rel-> dst valid from validFrom (UPSERT_EDGE). src (and dst when not a literal) must be known entities.',
    'UPSERT_EDGE',
    upsertEdge,
  ),
  commandTool(
    'remember_event',
    'Remember an event',
    'Records an event with a summary, a time span, participants and the facts that evidence it (UPSERT_EVENT).',
    'UPSERT_EVENT',
    upsertEvent,
  ),
  commandTool(
    'correct_fact',
    'Correct a fact',
    'Corrects when a fact was valid (RETRO_CORRECT): a new version with the corrected validity; the old one stays in the history.',
    'RETRO_CORRECT',
    retroCorrect,
  ),
  commandTool(
    'retract_fact',
    'Retract a fact',
    'The memory stops believing a fact from now on (ARCHIVE_EDGE); its history and audit keep it.',
    'ARCHIVE_EDGE',
    archiveEdge,
  ),
  {
    name: 'remember_batch',
    title: 'Remember a batch of commands',
    description: 'Applies up to 1000 DSL commands atomically (all or nothing), e.g. two entities and the fact between them.',
    inputSchema: z.strictObject({ ...memoryField, ...commandsRequest.shape }),
    readOnly: false,
    run: (memory, args) => memory.commands(args['commands'] as WireCommandInput[]),
  },
  {
    name: 'read_facts',
    title: 'Read facts at a cut',
    description: 'The facts true at validAt as the memory believed at recordedAt (both default to now), optionally filtered by src, rel, dst.',
    inputSchema: z.strictObject({
      ...memoryField,
      ...cut,
      src: id.optional(),
      rel: id.optional(),
      dst: id.optional(),
      consistency: z.enum(['projection', 'replay']).optional().describe('"replay" answers by exact replay of the log'),
      minPosition: z
        .number()
        .int()
        .nonnegative()
        .optional()
        .describe("wait (bounded) until the read models have this position of the memory, e.g. a write's position"),
    }),
    readOnly: true,
    run: (memory, { memoryId: _m, ...filter }) => memory.facts(filter as Parameters<MemoryClient['facts']>[0]),
  },
  {
    name: 'search_memory',
    title: 'Search the memory',
    description: 'A ranked, auditable subgraph (events, facts, mentions, episodes) for a query, visible at the cut, within a token budget.',
    inputSchema: z.strictObject({
      ...memoryField,
      query: nonBlankText,
      ...cut,
      k: searchRequest.shape.k.describe('items per kind (default 10)'),
      tokenBudget: searchRequest.shape.tokenBudget.describe('cap on the total tokens'),
    }),
    readOnly: true,
    run: (memory, { memoryId: _m, ...request }) => memory.search(request as Parameters<MemoryClient['search']>[0]),
  },
  {
    name: 'fact_history',
    title: "A fact's history",
    description: 'Every version of a fact with its valid and record intervals, oldest first.',
    inputSchema: z.strictObject({ ...memoryField, factId: id, recordedAt: instant.optional().describe('only what was recorded by then') }),
    readOnly: true,
    run: (memory, args) =>
      memory.history(args['factId'] as string, args['recordedAt'] === undefined ? {} : { recordedAt: args['recordedAt'] as string }),
  },
  {
    name: 'fact_audit',
    title: "A fact's audit trail",
    description: 'Every event that touched a fact, in log order, with who (actor), why (reason) and when.',
    inputSchema: z.strictObject({ ...memoryField, factId: id }),
    readOnly: true,
    run: (memory, args) => memory.audit(args['factId'] as string),
  },
];
