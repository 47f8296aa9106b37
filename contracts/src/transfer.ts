import { z } from 'zod';
import { type DomainCommand, wireCommand } from './commands';
import { toDomainCommand } from './domain-command';
import { capDetails, zodIssuesToDetails, type ErrorDetail } from './errors';

/**
 * Export / import (SPEC §4): the log as JSONL, one accepted command per line in log
 * order, each with its `recordedAt` and `commandId`.
 */

export const JSONL_CONTENT_TYPE = 'application/x-ndjson';

/** One import line: a command whose `commandId` and `recordedAt` are mandatory. */
export const importLine = wireCommand.superRefine((c, ctx) => {
  if (c.commandId === undefined) ctx.addIssue({ code: 'custom', message: 'is required in an import line', path: ['commandId'] });
  if (c.recordedAt === undefined) ctx.addIssue({ code: 'custom', message: 'is required in an import line', path: ['recordedAt'] });
});

/** importLine requires a commandId, so an import never assigns one. */
const missingCommandId = (): never => {
  throw new Error('an import line without a commandId passed validation');
};

/** `POST /v1/memories/{memoryId}/import` response. */
export const importResponse = z.strictObject({
  position: z.number().int().nonnegative(),
  imported: z.number().int().nonnegative(),
});
export type ImportResponse = z.output<typeof importResponse>;

/** `lines[i]`: the 1-based line of `commands[i]` (blank lines are skipped). */
export type ImportParseResult = { ok: true; commands: DomainCommand[]; lines: number[] } | { ok: false; details: ErrorDetail[] };

/**
 * Parses a JSONL import body (an empty body is an empty log). Blank lines are
 * skipped; details name the 1-based line: `line.3.validTo`. Never throws.
 */
export function parseImportJsonl(body: string): ImportParseResult {
  const commands: DomainCommand[] = [];
  const lineNumbers: number[] = [];
  const details: ErrorDetail[] = [];
  // A byte order mark (some editors write one) is not part of the first line.
  const lines = (body.startsWith('\uFEFF') ? body.slice(1) : body).split('\n');
  lines.forEach((raw, index) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    const at = `line.${index + 1}`;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      details.push({ path: at, message: 'is not valid JSON' });
      return;
    }
    const parsed = importLine.safeParse(json);
    if (!parsed.success) {
      for (const d of zodIssuesToDetails(parsed.error)) details.push({ path: d.path ? `${at}.${d.path}` : at, message: d.message });
      return;
    }
    commands.push(toDomainCommand(parsed.data, missingCommandId));
    lineNumbers.push(index + 1);
  });
  return details.length > 0 ? { ok: false, details: capDetails(details) } : { ok: true, commands, lines: lineNumbers };
}

/** One export line for a domain command (which must carry its `recordedAt`). */
export function toJsonlLine(command: DomainCommand): string {
  return JSON.stringify(command);
}
