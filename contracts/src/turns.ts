import { z } from 'zod';
import { id, instant, list, nonBlankText } from './primitives';
import { commandResult, memoryPosition } from './responses';

/**
 * Conversation turns (SPEC §5.1): each turn becomes a RECORD_MENTION of document `sessionId`,
 * and extraction derives ordinary DSL commands from them.
 */

export const EXTRACTION_MODES = ['sync', 'async', 'off'] as const;
export type ExtractionMode = (typeof EXTRACTION_MODES)[number];

export const turn = z.strictObject({
  turnId: id.optional().meta({ description: 'the mention id of the turn; derived from sessionId, at, speaker and text when omitted' }),
  speaker: nonBlankText,
  text: nonBlankText,
  at: instant.meta({ description: 'when the turn was said; relative time in its text resolves against it' }),
});

export const turnsRequest = z.strictObject({
  sessionId: id,
  turns: list(turn).min(1),
  recordedAt: instant.optional(),
  extraction: z.enum(EXTRACTION_MODES).default('sync'),
});

export const derivedCommand = z.strictObject({
  commandId: z.string(),
  op: z.string(),
  status: z.enum(['applied', 'duplicate', 'unchanged']),
  ids: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
  turns: z.array(z.string()),
});

export const turnsResponse = z.strictObject({
  position: memoryPosition("the memory's position after the turns (and, in sync mode, what was derived from them)"),
  results: z.array(commandResult),
  derived: z.array(derivedCommand),
});

/** `POST …/reextract`: derive again from the recorded turns (all sessions', or one session's) with the current extractor. */
export const reextractRequest = z.strictObject({
  sessionId: id.optional().meta({ description: "only this session's turns; all sessions' when omitted" }),
});

export const reextractResponse = z.strictObject({
  jobs: z.number().int().min(0).meta({ description: 'async extraction jobs queued, each for up to 50 turns of one session' }),
  turns: z.number().int().min(0).meta({ description: 'turns the jobs name' }),
  extractor: z.string().meta({ description: '`name@version` of the extractor the jobs run' }),
});

/** `GET …/extraction`: how the memory's turns are derived from. */
export const extractionSettings = z.strictObject({
  memoryId: id,
  extractor: z.string().meta({ description: "`name@version` of the serving process's extractor" }),
  gate: z.number().min(0).max(1).meta({ description: 'the least confidence of a derived command appended: `memoryGate`, else `defaultGate`' }),
  memoryGate: z
    .number()
    .min(0)
    .max(1)
    .nullable()
    .meta({ description: "the memory's own gate, set by the command `SET_EXTRACTION_GATE` (logged: export, import, replay carry it); null: none" }),
  defaultGate: z.number().min(0).max(1).meta({ description: "the serving process's default (`EXTRACTION_GATE`)" }),
});

export const EXTRACTION_STATUSES = ['none', 'pending', 'failed', 'done'] as const;

/** Where the `async` extraction of a mention stands: its latest job. */
export const mentionExtraction = z.strictObject({
  status: z.enum(EXTRACTION_STATUSES).meta({
    description:
      '`none`: no async job names the turn (sync or off turns); `pending`: not derived yet; `failed`: the extractor failed, retried later ' +
      '(the turn stays recorded); `done`: what it derived is appended',
  }),
  attempts: z.number().int().min(0).optional().meta({ description: 'extractions run for the job so far' }),
  extractor: z.string().optional().meta({ description: '`name@version` of the extractor that ran (or is to run) the job' }),
  error: z.string().optional().meta({ description: "the last failure's message, while the job is `failed`" }),
});

/**
 * `GET …/mentions/{mentionId}/derived`: every accepted command derived from the mention, in log order, as exported, and how
 * its async extraction stands.
 */
export const derivedResponse = z.strictObject({
  mentionId: z.string(),
  commands: z.array(z.record(z.string(), z.unknown())),
  extraction: mentionExtraction,
});

export type Turn = z.output<typeof turn>;
export type TurnsRequest = z.output<typeof turnsRequest>;
/** A turns request as a client sends it. */
export type TurnsRequestInput = z.input<typeof turnsRequest>;
export type DerivedResponse = z.output<typeof derivedResponse>;
export type MentionExtractionStatus = z.output<typeof mentionExtraction>;
export type DerivedCommandResult = z.output<typeof derivedCommand>;
export type TurnsResponse = z.output<typeof turnsResponse>;
export type ReextractRequest = z.output<typeof reextractRequest>;
export type ReextractResponse = z.output<typeof reextractResponse>;
export type ExtractionSettings = z.output<typeof extractionSettings>;
