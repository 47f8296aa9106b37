import type { HistoryResponse, MemoTraceClient, WireCommandInput } from '@memotrace/client';
import { tool } from 'ai';
import { z } from 'zod';

export interface MemoryToolsOptions {
  memoryId: string;
  /** Recorded as every command's actor (a server with API keys records the key's id instead). Default `ai-sdk`. */
  actor?: string;
}

const instant = z
  .string()
  .describe('an ISO-8601 instant with a UTC offset and at most millisecond precision, e.g. "2024-05-06T09:00:00Z" or "2024-05-06T11:00:00+02:00"');

/** `works at` -> `works_at`: relations are ids, so one spelling per relation keeps a memory's facts together. */
export function relationId(relation: string): string {
  const id = relation
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '');
  if (id === '') throw new Error(`relation ${JSON.stringify(relation)} has no letters or digits`);
  return id;
}

/**
 * AI SDK tools over one MemoTrace memory: `remember` a fact, `searchMemory` with a time cut, `checkClaims` (a draft
 * answer's claims against the memory), `correctFact` (its validity, or retract it), and `factHistory`. They write
 * through MemoTrace's DSL, so every change is a new version with an audit record; nothing is overwritten. Their reads
 * wait for their own writes, so a model finds what it has just remembered. A MemoTrace error (an unknown fact, an
 * invalid instant) is thrown, and the SDK hands it to the model as the tool's error.
 */
export function memoryTools(client: MemoTraceClient, options: MemoryToolsOptions) {
  const memory = client.memory(options.memoryId);
  const actor = options.actor ?? 'ai-sdk';
  let position = 0;
  const writeAll = async (commands: WireCommandInput[]) => {
    const answer = await memory.commands(commands.map((command) => ({ ...command, actor })));
    position = Math.max(position, answer.position);
    return answer.results;
  };
  const write = async (command: WireCommandInput) => (await writeAll([command]))[0]!;
  const afterWrites = () => (position > 0 ? { minPosition: position } : {});
  /** Entities by name: MemoTrace derives their ids from the names, so a name always meets the same entity. */
  const entities = async (names: string[]) =>
    (await writeAll(names.map((name): WireCommandInput => ({ op: 'UPSERT_ENTITY', name })))).map((r) => r.ids['entityId'] as string);

  return {
    remember: tool({
      description:
        'Store a fact in long-term memory as subject -relation-> object, e.g. Alice -works_at-> Acme. The object is another ' +
        'entity by name, or a value (a date, a number, free text) when objectIsValue is true. Say from when it holds in the world ' +
        '(validFrom) if the user said so. If the memory declares the relation one object at a time (one employer, one city), ' +
        'a new object ends the previous fact from validFrom on; `ended` lists those facts. Returns the factId.',
      inputSchema: z.object({
        subject: z.string().min(1).describe('the name of the entity the fact is about, e.g. "Alice"'),
        relation: z.string().min(1).describe('the relation, e.g. "works_at", "lives_in", "birthday"'),
        object: z.string().describe('the name of the other entity (e.g. "Acme"), or the value when objectIsValue is true'),
        objectIsValue: z.boolean().optional().describe('true when object is a value, not an entity; default false'),
        validFrom: instant.optional().describe('from when the fact holds in the world; default: now'),
        validTo: instant.optional().describe('until when the fact holds (exclusive); default: open'),
        confidence: z.number().min(0).max(1).optional().describe('how sure the statement is, 0..1'),
        source: z.string().optional().describe('where the fact comes from, e.g. "user said so in chat"'),
      }),
      execute: async ({ subject, relation, object, objectIsValue, validFrom, validTo, confidence, source }) => {
        const rel = relationId(relation); // before anything is written: a relation without letters is refused
        const [src, entityDst] = (await entities(objectIsValue ? [subject] : [subject, object])) as [string, string?];
        const dst = objectIsValue ? { literal: object, datatype: 'string' as const } : entityDst!;
        const result = await write({
          op: 'UPSERT_EDGE',
          src,
          rel,
          dst,
          ...(validFrom === undefined ? {} : { validFrom }),
          ...(validTo === undefined ? {} : { validTo }),
          ...(confidence === undefined ? {} : { confidence }),
          ...(source === undefined ? {} : { source }),
        });
        return {
          factId: result.ids['factId'] as string,
          status: result.status,
          recordedAt: result.recordedAt,
          // The facts of a one-object relation this one superseded (SPEC 3.1).
          ended: (result.ids['supersededFactIds'] as string[] | undefined) ?? [],
        };
      },
    }),

    searchMemory: tool({
      description:
        'Search long-term memory for facts, events and conversation snippets relevant to a question. By default it searches ' +
        'everything the memory believes now. validAt asks what held in the world at that instant; recordedAt asks what the memory ' +
        'believed at that instant (before later corrections). Each item has an id (a factId for facts) and, for facts, the ' +
        'interval it holds in the world.',
      inputSchema: z.object({
        query: z.string().min(1).describe('the question or keywords'),
        validAt: instant.optional().describe('only what held in the world at this instant; default: any time'),
        recordedAt: instant.optional().describe('what the memory believed at this instant; default: now'),
        limit: z.number().int().min(1).max(100).optional().describe('at most this many items of each kind; default 10'),
      }),
      execute: async ({ query, validAt, recordedAt, limit }) => {
        const cut = { validAt: validAt ?? '*', ...(recordedAt === undefined ? {} : { recordedAt }) };
        const answer = await memory.search({ query, ...cut, k: limit ?? 10, ...afterWrites() });
        return {
          cut: answer.cut,
          items: answer.items.map(({ kind, id, text, validFrom, validTo, recordedFrom }) => ({ kind, id, text, validFrom, validTo, recordedFrom })),
        };
      },
    }),

    checkClaims: tool({
      description:
        'Before you answer, check what you are about to say against long-term memory: give your draft answer as text (e.g. ' +
        '"Alice works at Acme since Monday"). The memory reads the claims in it and gives each one verdict: supported (it holds ' +
        'then), contradicted (a relation with one value at a time holds another value), outdated (it held, but ended by then), ' +
        'not_yet_valid (it starts later), retracted (the memory believed it once and no longer does) or unknown; with the facts ' +
        'it rests on. Say what is supported; correct what is contradicted, outdated or not yet valid.',
      inputSchema: z.object({
        text: z.string().min(1).max(8192).describe('your draft answer, e.g. "Alice moved to Porto in May and works at Acme"'),
        speaker: z.string().min(1).optional().describe('who "I" is in the text, by name, e.g. "Alice"'),
        validAt: instant.optional().describe('the world time the answer is about; default: now'),
        recordedAt: instant.optional().describe('check against what the memory believed at this instant; default: now'),
      }),
      execute: async ({ text, speaker, validAt, recordedAt }) => {
        const answer = await memory.check({
          text,
          ...(speaker === undefined ? {} : { speaker }),
          ...(validAt === undefined ? {} : { validAt }),
          ...(recordedAt === undefined ? {} : { recordedAt }),
          ...afterWrites(),
        });
        return {
          cut: answer.cut,
          verdicts: answer.verdicts.map(({ claim, verdict, facts }) => ({
            claim,
            verdict,
            facts: facts.map(({ factId, src, rel, dst, validFrom, validTo, recordedFrom, recordedTo }) => ({
              factId,
              src,
              rel,
              dst,
              validFrom,
              validTo,
              recordedFrom,
              recordedTo,
            })),
          })),
        };
      },
    }),

    correctFact: tool({
      description:
        'Correct a stored fact by its factId. Give validFrom and/or validTo to say when it really held in the world (e.g. it ' +
        'ended last week: validTo), or retract: true when it was never true. The memory keeps the earlier version in the ' +
        "fact's history.",
      inputSchema: z.object({
        factId: z.string().min(1),
        validFrom: instant.optional().describe('when the fact really started to hold'),
        validTo: instant.nullable().optional().describe('when it really stopped holding (exclusive); null: it still holds'),
        retract: z.boolean().optional().describe('true: the memory stops believing the fact at all'),
        reason: z.string().optional().describe('why, for the audit'),
      }),
      execute: async ({ factId, validFrom, validTo, retract, reason }) => {
        const because = reason === undefined ? {} : { reason };
        const result = retract
          ? await write({ op: 'ARCHIVE_EDGE', factId, ...because })
          : await write({
              op: 'RETRO_CORRECT',
              factId,
              ...(validFrom === undefined ? {} : { validFrom }),
              ...(validTo === undefined ? {} : { validTo }),
              ...because,
            });
        return { factId, status: result.status, recordedAt: result.recordedAt };
      },
    }),

    factHistory: tool({
      description:
        'Every version of a stored fact, oldest first: when each held in the world (validFrom..validTo) and when the memory ' +
        'believed it (recordedFrom..recordedTo; recordedTo null: still believed).',
      inputSchema: z.object({ factId: z.string().min(1) }),
      execute: async ({ factId }) => {
        const query = new URLSearchParams(Object.entries(afterWrites()).map(([k, v]): [string, string] => [k, String(v)]));
        const path = `/v1/memories/${encodeURIComponent(options.memoryId)}/facts/${encodeURIComponent(factId)}/history?${query}`;
        const { versions } = await client.request<HistoryResponse>('GET', path);
        return {
          factId,
          versions: versions.map(({ src, rel, dst, validFrom, validTo, recordedFrom, recordedTo, confidence, source }) => ({
            src,
            rel,
            dst,
            validFrom,
            validTo,
            recordedFrom,
            recordedTo,
            confidence,
            source,
          })),
        };
      },
    }),
  };
}
