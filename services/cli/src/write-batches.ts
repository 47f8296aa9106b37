import { type MemoryClient, MemoTraceError } from '@memotrace/client';
import type { CommandsResponse } from '@memotrace/contracts';
import type { FileCommand } from './command-file';
import { NOTHING_WRITTEN_EXIT, PARTLY_WRITTEN_EXIT, WriteFailure, lineRange } from './write-failure';

export type CommandResult = CommandsResponse['results'][number];

/** What the batches written so far did. */
export interface WriteTally {
  commands: number;
  applied: number;
  unchanged: number;
  duplicate: number;
  /** The log position after the last written batch (none before the first). */
  position: number | undefined;
  /** The file's last line in a written batch. */
  lastLine: number | undefined;
}

export function emptyTally(): WriteTally {
  return { commands: 0, applied: 0, unchanged: 0, duplicate: 0, position: undefined, lastLine: undefined };
}

/** `1200 commands: 1198 applied, 1 unchanged, 1 duplicate; position 1234`. */
export function describeTally(tally: WriteTally): string {
  const commands = `${tally.commands} command${tally.commands === 1 ? '' : 's'}`;
  const counts = `${commands}: ${tally.applied} applied, ${tally.unchanged} unchanged, ${tally.duplicate} duplicate`;
  return tally.position === undefined ? counts : `${counts}; position ${tally.position}`;
}

/**
 * Sends the batches in order, each one atomic (SPEC §4), and stops at the first that fails: the
 * WriteFailure then says which lines were written (and the log position after them), which
 * failed and why, named by the file's line, and which were not written.
 */
export async function writeBatches(
  memory: Pick<MemoryClient, 'commands'>,
  batches: readonly (readonly FileCommand[])[],
  onBatch: (results: readonly CommandResult[], tally: WriteTally) => void = () => undefined,
): Promise<WriteTally> {
  const tally = emptyTally();
  const firstLine = batches[0]?.[0]?.line;
  const lastLine = batches.at(-1)?.at(-1)?.line;
  for (const [index, batch] of batches.entries()) {
    let response: CommandsResponse;
    try {
      response = await memory.commands(batch.map((c) => c.command));
    } catch (error) {
      const unsent = batches[index + 1]?.[0]?.line;
      throw failureOf(error, batch, tally, { first: firstLine!, last: lastLine!, unsent });
    }
    for (const result of response.results) tally[result.status] += 1;
    tally.commands += response.results.length;
    tally.position = response.position;
    tally.lastLine = batch.at(-1)!.line;
    onBatch(response.results, { ...tally });
  }
  return tally;
}

/** The file's first and last command lines, and the first line of the batches after the failed one (if any). */
interface FileSpan {
  first: number;
  last: number;
  unsent: number | undefined;
}

function failureOf(error: unknown, batch: readonly FileCommand[], tally: WriteTally, file: FileSpan): WriteFailure {
  const batchFirst = batch[0]!.line;
  const written = tally.lastLine === undefined ? undefined : `${lineRange(file.first, tally.lastLine)} written (position ${tally.position})`;
  if (isRefusal(error)) {
    // A refused batch wrote nothing (SPEC §4), and the later ones were never sent.
    const notWritten = `${lineRange(batchFirst, file.last)} not written`;
    return new WriteFailure(
      `${refusalOf(error, batch)}; ${written ? `${written}, ${notWritten}` : 'nothing written'}`,
      written ? PARTLY_WRITTEN_EXIT : NOTHING_WRITTEN_EXIT,
    );
  }
  // No answer (or a failed one) after the client's retries: this batch may have been applied.
  const unsent = file.unsent === undefined ? undefined : `${lineRange(file.unsent, file.last)} not written`;
  const rest = [written, unsent].filter((part) => part !== undefined).join(', ');
  return new WriteFailure(
    `${lineRange(batchFirst, batch.at(-1)!.line)} may or may not have been written: ${describeError(error)}${rest ? `; ${rest}` : ''}`,
    PARTLY_WRITTEN_EXIT,
  );
}

/** A 4xx answer (but a timeout) is a decision: the batch was not applied. */
function isRefusal(error: unknown): error is MemoTraceError {
  return error instanceof MemoTraceError && error.status >= 400 && error.status < 500 && error.status !== 408;
}

const BATCH_PATH = /^commands\.(\d+)(?:\.(.+))?$/;

/** `line 1200: UNKNOWN_FACT (HTTP 404): factId: unknown fact nope`, from the batch-relative `commands.199.factId`. */
function refusalOf(error: MemoTraceError, batch: readonly FileCommand[]): string {
  const details = error.details ?? [];
  for (const detail of details) {
    const match = BATCH_PATH.exec(detail.path);
    const command = match ? batch[Number(match[1])] : undefined;
    if (!match || !command) continue;
    const field = match[2] === undefined ? '' : `${match[2]}: `;
    // A domain error's message names the command by its index in the batch: the line says it already.
    const problem = detail.message.replace(/^commands\[\d+\]:\s*/, '');
    const others = details.length - 1;
    return `line ${command.line}: ${codeOf(error)}: ${field}${problem}${others > 0 ? ` (and ${others} more problem${others === 1 ? '' : 's'})` : ''}`;
  }
  return `${lineRange(batch[0]!.line, batch.at(-1)!.line)} refused: ${describeError(error)}`;
}

function describeError(error: unknown): string {
  if (!(error instanceof MemoTraceError)) return (error as Error).message;
  const first = error.details?.[0];
  const detail = first && first.message !== error.message ? ` (${first.path || 'body'}: ${first.message})` : '';
  return `${codeOf(error)}: ${error.message}${detail}`;
}

function codeOf(error: MemoTraceError): string {
  return error.status === 0 ? error.code : `${error.code} (HTTP ${error.status})`;
}
