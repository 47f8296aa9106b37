import { z } from 'zod';
import { canonicalInstant, instant } from './primitives';

/**
 * Operations routes: read models vs replay for one memory (verify), and the
 * blue/green rebuild of the read models (admin). Wire shapes only; the services fill them.
 */

/** GET /v1/memories/{memoryId}/verify?recordedAt= (default: now). */
export const verifyQuery = z.strictObject({ recordedAt: instant.optional() });

export const verifyDifference = z.object({
  query: z.string().meta({ description: 'the query asked both ways, e.g. facts(validAt=*, recordedAt=…)' }),
  projection: z.unknown().meta({ description: "the read models' answer (of a listing by id: only its items that differ)" }),
  replay: z.unknown().meta({ description: "the exact replay's answer (of a listing by id: only its items that differ)" }),
});

export const verifyResponse = z.object({
  memoryId: z.string(),
  recordedAt: canonicalInstant,
  consistent: z.boolean(),
  compared: z.number().int().nonnegative().meta({ description: 'how many queries were asked both ways' }),
  validityBounds: z
    .number()
    .int()
    .nonnegative()
    .meta({ description: 'validity bounds (starts, ends, time spans, windows) the memory knows at recordedAt' }),
  validAts: z.array(z.union([z.literal('*'), canonicalInstant])).meta({
    description: 'the validity cuts asked: "*", then every bound, or 100 of them evenly spread (first and last included) when there are more',
  }),
  differences: z.array(verifyDifference).meta({ description: 'every difference, not just the first' }),
});

/** POST /v1/admin/rebuild: to the head (switched in) or, with `to`, a frozen snapshot up to that record time. */
export const rebuildRequest = z.strictObject({ to: instant.optional() });

export const rebuildProgress = z.object({
  schema: z.string(),
  to: canonicalInstant.nullable(),
  phase: z.enum(['building', 'loading', 'indexing', 'switching', 'done']),
  done: z.number().int().nonnegative().meta({ description: 'log events read so far' }),
  total: z.number().int().nonnegative().meta({ description: 'the log head when the rebuild started' }),
  applied: z.number().int().nonnegative(),
  eventsPerSecond: z.number().nonnegative(),
  etaSeconds: z.number().nonnegative().nullable(),
  elapsedMs: z.number().nonnegative(),
});

export const rebuildResult = z.object({
  schema: z.string(),
  mode: z.enum(['switched', 'snapshot']),
  position: z.number().int().nonnegative(),
  applied: z.number().int().nonnegative(),
  elapsedMs: z.number().nonnegative(),
  eventsPerSecond: z.number().nonnegative(),
  retiredSchema: z.string().optional(),
});

export const rebuildStatus = z.object({
  state: z.enum(['idle', 'running', 'done', 'failed']),
  to: canonicalInstant.nullable(),
  startedAt: canonicalInstant.nullable(),
  progress: rebuildProgress.nullable(),
  result: rebuildResult.nullable(),
  error: z.string().nullable(),
});

export type VerifyResponse = z.infer<typeof verifyResponse>;
export type RebuildStatusResponse = z.infer<typeof rebuildStatus>;
