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

/** `GET …/mentions/{mentionId}/derived`: every accepted command derived from the mention, in log order, as exported. */
export const derivedResponse = z.strictObject({
  mentionId: z.string(),
  commands: z.array(z.record(z.string(), z.unknown())),
});

export type Turn = z.output<typeof turn>;
export type TurnsRequest = z.output<typeof turnsRequest>;
/** A turns request as a client sends it. */
export type TurnsRequestInput = z.input<typeof turnsRequest>;
export type DerivedResponse = z.output<typeof derivedResponse>;
export type DerivedCommandResult = z.output<typeof derivedCommand>;
export type TurnsResponse = z.output<typeof turnsResponse>;
