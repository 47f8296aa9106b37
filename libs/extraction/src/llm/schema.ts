import { z } from 'zod';
import type { DerivableOp } from '../port';

/**
 * What the model answers: `{items: [{command, confidence, turns, why}]}`. A command keeps the
 * DSL's op and field names, with two differences the model cannot avoid: it names entities by a
 * known entity id or by a name it upserts in the same answer (it cannot compute derived ids), and
 * an event names the facts it includes by their places in `items` (`factItems`). Ids the store
 * derives (entityId, factId, eventId) and the envelope are not asked of it; `./answer.ts` turns
 * each command into the DSL and validates it with the contracts' schemas.
 *
 * The same zod schemas validate the answer and, through `responseFormat`, describe it to the
 * endpoint, so the two cannot drift apart.
 */

/** Entity reference: resolved by `./answer.ts`. */
const entityRef = z.string().min(1).describe('a known entity id, or the exact name of an entity upserted in this answer');

const instantText = z.string().meta({
  format: 'date-time',
  description: 'ISO-8601 instant with a UTC offset, e.g. 2024-05-04T00:00:00Z; relative time resolved against the turn',
});

const literalTarget = z.strictObject({
  literal: z.union([z.string(), z.number(), z.boolean()]),
  datatype: z.enum(['string', 'number', 'boolean', 'instant']).optional(),
});

export const modelCommands = {
  UPSERT_ENTITY: z.strictObject({
    op: z.literal('UPSERT_ENTITY'),
    name: z.string().min(1),
    aliases: z.array(z.string().min(1)).optional(),
    types: z.array(z.string().min(1)).optional().describe('e.g. person, place, organisation, pet'),
  }),
  MERGE_ENTITY: z.strictObject({
    op: z.literal('MERGE_ENTITY'),
    srcId: entityRef,
    dstId: entityRef,
  }),
  DEFINE_RELATION: z.strictObject({
    op: z.literal('DEFINE_RELATION'),
    rel: z.string().min(1),
    cardinality: z.enum(['one', 'many']),
  }),
  UPSERT_EDGE: z.strictObject({
    op: z.literal('UPSERT_EDGE'),
    src: entityRef,
    rel: z.string().min(1).describe('snake_case relation, e.g. lives_in'),
    dst: z.union([entityRef, literalTarget]),
    validFrom: instantText.optional(),
    validTo: instantText.nullable().optional(),
  }),
  UPSERT_EVENT: z.strictObject({
    op: z.literal('UPSERT_EVENT'),
    summary: z.string().min(1),
    participants: z.array(z.strictObject({ entityId: entityRef, role: z.string().min(1) })).optional(),
    timeSpan: z.strictObject({ from: instantText, to: instantText.nullable().optional() }),
    factItems: z
      .array(z.number().int().min(0).max(999))
      .optional()
      .describe('places (0-based) in items of the UPSERT_EDGE items this event includes'),
  }),
} satisfies Record<DerivableOp, z.ZodType>;

export type ModelCommand = { [Op in DerivableOp]: z.output<(typeof modelCommands)[Op]> }[DerivableOp];

export const DERIVABLE_OPS = Object.keys(modelCommands) as DerivableOp[];

/** One item; `turnRef` checks a turn id (an enum in the response format, a membership check when validating). */
function itemSchema(turnRef: z.ZodType<string>) {
  return z.object({
    command: z.union([
      modelCommands.UPSERT_ENTITY,
      modelCommands.MERGE_ENTITY,
      modelCommands.DEFINE_RELATION,
      modelCommands.UPSERT_EDGE,
      modelCommands.UPSERT_EVENT,
    ]),
    confidence: z.number().min(0).max(1),
    turns: z.array(turnRef).min(1).describe('the ids of the turns this item rests on'),
    why: z.string().optional().describe('why, in a few words'),
  });
}

/** The answer's outer shape: anything else is a failed extraction, not an invalid item. */
export const answerEnvelope = z.object({ items: z.array(z.unknown()) });

/** The item envelope (command checked per op afterwards, for precise messages). */
export function itemEnvelope(turnIds: ReadonlySet<string>) {
  return z.object({
    command: z.object({ op: z.unknown() }).loose(),
    confidence: z.number().min(0).max(1),
    turns: z
      .array(z.string().refine((t) => turnIds.has(t), { error: (issue) => `${JSON.stringify(issue.input)} is not one of the turns given` }))
      .min(1),
    why: z.string().optional(),
  });
}

/**
 * The `response_format` of the request. Strict structured output (OpenAI's `strict: true`) wants
 * every property required and no additional ones, on every object, and refuses string length
 * bounds: optional fields are listed as required here (the model fills them; validation still
 * accepts them absent), and the bounds are left to validation.
 */
export function responseFormat(turnIds: readonly string[]): { type: 'json_schema'; json_schema: { name: string; strict: true; schema: object } } {
  const turnRef = turnIds.length > 0 ? z.enum(turnIds as [string, ...string[]]) : z.string();
  const { $schema: _dialect, ...schema } = z.toJSONSchema(z.strictObject({ items: z.array(itemSchema(turnRef)) }), { io: 'input' });
  return { type: 'json_schema', json_schema: { name: 'derived_items', strict: true, schema: forStrictOutput(schema) as object } };
}

const UNSUPPORTED_IN_STRICT = new Set(['minLength', 'maxLength']);

function forStrictOutput(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(forStrictOutput);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) if (!UNSUPPORTED_IN_STRICT.has(key)) out[key] = forStrictOutput(value);
  if (out['type'] === 'object' && typeof out['properties'] === 'object' && out['properties'] !== null) {
    out['required'] = Object.keys(out['properties']);
    out['additionalProperties'] = false;
  }
  return out;
}
