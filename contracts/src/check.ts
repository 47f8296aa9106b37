import { z } from 'zod';
import { edgeTarget } from './commands';
import { consistency, positionString } from './queries';
import { cut, factVersion, literalOut } from './responses';
import { canonicalInstant, id, instant, instantOrStar, nonBlankText, stringCheck, utf8ByteLength } from './primitives';

/** The answer check (SPEC 5.3): claims, or a text the memory's extractor reads claims from. */

/** The most claims one check takes. */
export const MAX_CLAIMS = 100;
/** The longest text a check reads claims from, in UTF-8 bytes. */
export const MAX_CHECK_TEXT_BYTES = 8 * 1024;

export const claim = z.strictObject({
  src: id.meta({ description: 'an entity id (a merged one resolves through the merges known at recordedAt)' }),
  rel: id,
  dst: edgeTarget.meta({ description: 'an entity id, or a literal `{literal, datatype?}` as in UPSERT_EDGE' }),
  validAt: instant.optional().meta({ description: "this claim's valid time; default the body's validAt" }),
});

const checkText = z
  .string()
  .check(
    stringCheck((s, problem) => {
      if (s.includes('\u0000')) problem('must not contain NUL characters');
      if (utf8ByteLength(s) > MAX_CHECK_TEXT_BYTES) problem('must be at most 8 KiB in UTF-8');
      if (s.trim() === '') problem('must not be blank');
    }),
  )
  .meta({ description: "an agent's draft answer (1..8 KiB): the memory's extractor reads its claims as it reads a turn's statements" });

export const checkRequest = z
  .strictObject({
    claims: z
      .array(claim)
      .min(1, { error: 'must hold at least 1 claim' })
      .max(MAX_CLAIMS, { error: `must hold at most ${MAX_CLAIMS} claims` })
      .optional(),
    text: checkText.optional(),
    speaker: nonBlankText.optional().meta({ description: 'who "I" is in `text`: an entity id or a name' }),
    validAt: instantOrStar.optional().meta({ description: 'valid time of the cut (default: now); a claim may carry its own' }),
    recordedAt: instant.optional().meta({ description: 'record time of the cut (default: now): what the memory believed then' }),
    consistency: consistency.optional().meta({ description: '`replay`: answered by exact replay of the log (also as a query parameter)' }),
    minPosition: z.number().int().min(0).optional().meta({ description: 'wait (bounded) until the read models have this position' }),
  })
  .superRefine((v, ctx) => {
    if ((v.claims === undefined) === (v.text === undefined))
      ctx.addIssue({ code: 'custom', message: 'give either claims or text', path: [v.claims === undefined ? 'claims' : 'text'], input: v });
    if (v.speaker !== undefined && v.text === undefined)
      ctx.addIssue({ code: 'custom', message: 'speaker goes with text', path: ['speaker'], input: v.speaker });
  });

export const checkQuery = z.strictObject({
  consistency: consistency.optional(),
  minPosition: positionString.optional(),
});

/** SPEC 5.3's verdicts, in the order they are tried: the first that applies is a claim's verdict. */
export const VERDICTS = ['supported', 'contradicted', 'outdated', 'not_yet_valid', 'retracted', 'unknown'] as const;
export type Verdict = (typeof VERDICTS)[number];

const claimOut = z.strictObject({
  src: z.string(),
  rel: z.string(),
  dst: z.union([z.string(), literalOut]),
  validAt: canonicalInstant.optional(),
});

export const checkResponse = z.strictObject({
  cut,
  source: consistency,
  claims: z.array(claimOut).optional().meta({ description: 'the claims read from `text` (only when the body gave text)' }),
  verdicts: z.array(
    z.strictObject({
      claim: claimOut,
      verdict: z.enum(VERDICTS),
      facts: z.array(factVersion).meta({ description: 'the fact versions the verdict rests on' }),
    }),
  ),
});

export type CheckRequest = z.output<typeof checkRequest>;
export type CheckRequestInput = z.input<typeof checkRequest>;
export type CheckResponse = z.output<typeof checkResponse>;
