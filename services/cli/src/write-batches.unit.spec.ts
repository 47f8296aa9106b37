import { MemoTraceError } from '@memotrace/client';
import type { CommandsResponse, WireCommandInput } from '@memotrace/contracts';
import type { FileCommand } from './command-file';
import { type CommandResult, type WriteTally, describeTally, writeBatches } from './write-batches';
import { WriteFailure } from './write-failure';

/** Batches of `sizes` commands on consecutive lines, after `blank` blank lines between batches. */
function batchesOf(sizes: number[], blank = 0): FileCommand[][] {
  let line = 0;
  return sizes.map((size) => {
    line += blank;
    return Array.from({ length: size }, () => ({ line: ++line, command: { op: 'UPSERT_ENTITY', name: `n${line}` } as WireCommandInput, bytes: 1 }));
  });
}

/** A memory that answers each batch in turn: statuses, or an error to throw. */
function memoryAnswering(answers: (CommandResult['status'][] | Error)[]) {
  let position = 0;
  let call = 0;
  return {
    sent: [] as WireCommandInput[][],
    async commands(commands: WireCommandInput[]): Promise<CommandsResponse> {
      this.sent.push(commands);
      const answer = answers[call++]!;
      if (answer instanceof Error) throw answer;
      position += answer.filter((s) => s === 'applied').length;
      return {
        position,
        results: answer.map((status, i) => ({ commandId: `c${i}`, status, recordedAt: '2024-05-06T09:00:00.000Z', ids: {} })),
      } as CommandsResponse;
    },
  };
}

const statuses = (n: number, status: CommandResult['status'] = 'applied') => Array.from({ length: n }, () => status);

async function failureOf(promise: Promise<unknown>): Promise<WriteFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof WriteFailure)) throw new Error(`expected a WriteFailure, got ${String(error)}`);
  return error;
}

describe('writeBatches', () => {
  it('counts applied, unchanged and duplicate results and reports the final position', async () => {
    const memory = memoryAnswering([
      [...statuses(2), 'unchanged'],
      ['duplicate', 'applied'],
    ]);
    const seen: WriteTally[] = [];
    const tally = await writeBatches(memory, batchesOf([3, 2]), (_results, t) => seen.push(t));
    expect(tally).toEqual({ commands: 5, applied: 3, unchanged: 1, duplicate: 1, position: 3, lastLine: 5 });
    expect(seen.map((t) => t.commands)).toEqual([3, 5]);
    expect(describeTally(tally)).toBe('5 commands: 3 applied, 1 unchanged, 1 duplicate; position 3');
  });

  it('maps a refused batch back to the file line, and says which lines were written and which not', async () => {
    const refused = new MemoTraceError(404, 'UNKNOWN_FACT', 'commands[199]: unknown fact nope', [
      { path: 'commands.199.factId', message: 'commands[199]: unknown fact nope' },
    ]);
    const memory = memoryAnswering([statuses(1000), refused]);
    const failure = await failureOf(writeBatches(memory, batchesOf([1000, 200])));
    expect(failure.message).toBe(
      'line 1200: UNKNOWN_FACT (HTTP 404): factId: unknown fact nope; lines 1-1000 written (position 1000), lines 1001-1200 not written',
    );
    expect(failure.exitCode).toBe(3);
  });

  it('says nothing was written when the first batch is refused, and stops there', async () => {
    const invalid = new MemoTraceError(400, 'INVALID_REQUEST', 'invalid commands', [
      { path: 'commands.1.name', message: 'required' },
      { path: 'commands.2', message: 'unknown field' },
    ]);
    const memory = memoryAnswering([invalid]);
    const failure = await failureOf(writeBatches(memory, batchesOf([3, 3], 1)));
    expect(failure.message).toBe('line 3: INVALID_REQUEST (HTTP 400): name: required (and 1 more problem); nothing written');
    expect(failure.exitCode).toBe(1);
    expect(memory.sent).toHaveLength(1);
  });

  it('names the whole batch when the refusal is not about one command', async () => {
    const forbidden = new MemoTraceError(403, 'FORBIDDEN', 'key "k" has no access to this memory');
    const failure = await failureOf(writeBatches(memoryAnswering([forbidden]), batchesOf([2])));
    expect(failure.message).toBe('lines 1-2 refused: FORBIDDEN (HTTP 403): key "k" has no access to this memory; nothing written');
  });

  it('says a batch without an answer may or may not have been written, and that the later lines were not', async () => {
    const network = new MemoTraceError(0, 'NETWORK', 'cannot reach http://127.0.0.1:1: connect ECONNREFUSED');
    const memory = memoryAnswering([statuses(2), network]);
    // Blank lines between batches: the unsent lines start at the next batch's first command.
    const failure = await failureOf(writeBatches(memory, batchesOf([2, 2, 2], 1)));
    expect(failure.message).toBe(
      'lines 5-6 may or may not have been written: NETWORK: cannot reach http://127.0.0.1:1: connect ECONNREFUSED; ' +
        'lines 2-3 written (position 2), lines 8-9 not written',
    );
    expect(failure.exitCode).toBe(3);
  });
});
