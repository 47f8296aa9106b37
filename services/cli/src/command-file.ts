import { MAX_BATCH, type WireCommandInput, wireCommand, zodIssuesToDetails } from '@memotrace/contracts';
import { MAX_BODY_BYTES } from '@memotrace/http-kit';
import { randomUUID } from 'node:crypto';
import { NOTHING_WRITTEN_EXIT, WriteFailure, lineRange } from './write-failure';

/**
 * A JSONL command file for `memotrace write`: every line is checked against the contract's
 * schema before anything is sent, so a bad line is named by its line number while nothing
 * is written yet, and the commands are cut into requests the service accepts (SPEC §4 caps a
 * batch's commands and its body's size).
 */

/** One command of the file, with its 1-based line and its size in a request body. */
export interface FileCommand {
  line: number;
  command: WireCommandInput;
  bytes: number;
}

/** What one request may carry. */
export interface BatchLimits {
  commands: number;
  bytes: number;
}

export const REQUEST_LIMITS: BatchLimits = { commands: MAX_BATCH, bytes: MAX_BODY_BYTES };

/** `{"commands":[...]}` around the commands, which are joined by commas. */
const ENVELOPE_BYTES = Buffer.byteLength(JSON.stringify({ commands: [] }));

/**
 * Parses and validates every line; blank lines are skipped. Commands without a `commandId` get
 * one here, so the request sizes are exact and a retried request is idempotent. Throws a
 * WriteFailure naming the first bad line (and how many more there are) when any line is bad.
 */
export function parseCommandFile(text: string, newCommandId: () => string = () => `cli-${randomUUID()}`): FileCommand[] {
  const commands: FileCommand[] = [];
  const problems: { line: number; problem: string }[] = [];
  // A byte order mark (some editors write one) is not part of the first line.
  const lines = (text.startsWith('\uFEFF') ? text.slice(1) : text).split('\n');
  lines.forEach((raw, index) => {
    const source = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (source.trim() === '') return;
    const line = index + 1;
    let json: unknown;
    try {
      json = JSON.parse(source);
    } catch {
      problems.push({ line, problem: 'not valid JSON' });
      return;
    }
    const parsed = wireCommand.safeParse(json);
    if (!parsed.success) {
      const details = zodIssuesToDetails(parsed.error).map((d) => (d.path ? `${d.path}: ${d.message}` : d.message));
      problems.push({ line, problem: details.join(', ') });
      return;
    }
    // What the file says is what is sent: the service validates it again.
    const input = json as WireCommandInput;
    const command = input.commandId === undefined ? { ...input, commandId: newCommandId() } : input;
    const bytes = Buffer.byteLength(JSON.stringify(command));
    if (ENVELOPE_BYTES + bytes > REQUEST_LIMITS.bytes) {
      problems.push({ line, problem: `the command is ${mib(bytes)} as JSON, more than a request may carry (${mib(REQUEST_LIMITS.bytes)})` });
      return;
    }
    commands.push({ line, command, bytes });
  });
  if (problems.length > 0) throw new WriteFailure(`${describeProblems(problems)}; nothing written`, NOTHING_WRITTEN_EXIT);
  return commands;
}

function describeProblems(problems: readonly { line: number; problem: string }[]): string {
  const [first, ...rest] = problems;
  const shown = rest.slice(0, 5).map((p) => p.line);
  const more =
    rest.length === 0
      ? ''
      : ` (and ${rest.length} more bad line${rest.length === 1 ? '' : 's'}: ${shown.join(', ')}${rest.length > shown.length ? ', ...' : ''})`;
  return `line ${first!.line}: ${first!.problem}${more}`;
}

/** Consecutive batches, each within the limits; every command fits one (parseCommandFile checked). */
export function planBatches(commands: readonly FileCommand[], limits: BatchLimits = REQUEST_LIMITS): FileCommand[][] {
  const batches: FileCommand[][] = [];
  let current: FileCommand[] = [];
  let bytes = ENVELOPE_BYTES;
  for (const command of commands) {
    const separator = current.length > 0 ? 1 : 0;
    if (current.length > 0 && (current.length >= limits.commands || bytes + separator + command.bytes > limits.bytes)) {
      batches.push(current);
      current = [];
      bytes = ENVELOPE_BYTES;
    }
    bytes += (current.length > 0 ? 1 : 0) + command.bytes;
    current.push(command);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** The whole file as one batch (`write --atomic`), or a WriteFailure saying which limit it exceeds. */
export function planAtomicBatch(commands: readonly FileCommand[], limits: BatchLimits = REQUEST_LIMITS): FileCommand[][] {
  if (commands.length === 0) return [];
  const bytes = ENVELOPE_BYTES + commands.reduce((sum, c) => sum + c.bytes, 0) + commands.length - 1;
  const span = lineRange(commands[0]!.line, commands[commands.length - 1]!.line);
  const refuse = (why: string) =>
    new WriteFailure(
      `--atomic: ${commands.length} commands (${span}) ${why}; nothing written (without --atomic they go in several batches)`,
      NOTHING_WRITTEN_EXIT,
    );
  if (commands.length > limits.commands) throw refuse(`are more than the ${limits.commands} one atomic batch may hold`);
  if (bytes > limits.bytes) throw refuse(`need ${mib(bytes)} as one request, more than the ${mib(limits.bytes)} it may carry`);
  return [[...commands]];
}

function mib(bytes: number): string {
  const value = bytes / (1024 * 1024);
  return `${Number.isInteger(value) ? value : value.toFixed(1)} MiB`;
}
