import { z } from 'zod';

/** `POST /v1/memories/{memoryId}/consolidate` (SPEC §5.4): the body is `{}`; the run takes no options. */
export const consolidateRequest = z.strictObject({});

export const consolidateResponse = z.strictObject({
  cooled: z.number().int().nonnegative().meta({ description: 'items this run moved to the cold tier' }),
  warmed: z.number().int().nonnegative().meta({ description: 'cold items this run moved back (asserted again or returned by a search since)' }),
  appended: z.array(z.strictObject({ commandId: z.string(), op: z.string(), status: z.enum(['applied', 'duplicate', 'unchanged']) })).meta({
    description:
      'what consolidation derived (episodes, topics), as commands of actor consolidator:<name>@<version>; ' +
      'a second run over the same memory: all duplicate',
  }),
  mergeSuggestions: z
    .array(
      z.strictObject({
        srcId: z.string(),
        dstId: z.string(),
        score: z.number().min(0).max(1),
        why: z.string(),
        evidence: z.array(z.string()).meta({ description: 'the mentions or facts that tie the two' }),
      }),
    )
    .meta({ description: 'near-duplicate entities, best first; never merged automatically: MERGE_ENTITY {srcId, dstId} accepts one' }),
});

export type ConsolidateResponse = z.output<typeof consolidateResponse>;
