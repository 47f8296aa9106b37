import { type FileCommand, REQUEST_LIMITS, parseCommandFile, planAtomicBatch, planBatches } from './command-file';
import { WriteFailure } from './write-failure';

const entity = (i: number) => JSON.stringify({ op: 'UPSERT_ENTITY', entityId: `e-${i}`, name: `Entity ${i}` });
const ids = () => {
  let n = 0;
  return () => `id-${++n}`;
};

function failureOf(run: () => unknown): WriteFailure {
  try {
    run();
  } catch (error) {
    if (error instanceof WriteFailure) return error;
    throw error;
  }
  throw new Error('expected a WriteFailure');
}

describe('parseCommandFile', () => {
  it('keeps each command with its file line, skipping blank lines, a BOM and CRLF endings', () => {
    const text = `\uFEFF${entity(1)}\r\n\n   \n${JSON.stringify({ op: 'UPSERT_ENTITY', commandId: 'mine', name: 'Bob' })}\n`;
    const commands = parseCommandFile(text, ids());
    expect(commands.map((c) => [c.line, c.command.commandId])).toEqual([
      [1, 'id-1'],
      [4, 'mine'],
    ]);
    expect(commands[0]!.bytes).toBe(Buffer.byteLength(JSON.stringify(commands[0]!.command)));
  });

  it('names the first bad line by its number, how many more there are, and that nothing was written', () => {
    const lines = [entity(1), '{oops', entity(3), '{"op": "UPSERT_ENTITY"}', '{"op": "NOPE"}', '"text"'];
    const failure = failureOf(() => parseCommandFile(lines.join('\n')));
    expect(failure.exitCode).toBe(1);
    expect(failure.message).toBe('line 2: not valid JSON (and 3 more bad lines: 4, 5, 6); nothing written');
    expect(failureOf(() => parseCommandFile(`${entity(1)}\n{"op": "UPSERT_ENTITY", "name": "x", "colour": 1}`)).message).toBe(
      'line 2: colour: unknown field; nothing written',
    );
    expect(failureOf(() => parseCommandFile('{"op": "UPSERT_ENTITY"}')).message).toBe('line 1: name: required; nothing written');
  });

  it('refuses a line too large for any request', () => {
    const huge = JSON.stringify({ op: 'UPSERT_ENTITY', name: 'x', aliases: Array.from({ length: 140 }, () => 'a'.repeat(64 * 1024)) });
    const failure = failureOf(() => parseCommandFile(`${entity(1)}\n${huge}`));
    expect(failure.message).toMatch(/^line 2: the command is 8\.\d MiB as JSON, more than a request may carry \(8 MiB\); nothing written$/);
  });
});

describe('planBatches', () => {
  const commands = (n: number, bytes = 10): FileCommand[] =>
    Array.from({ length: n }, (_, i) => ({ line: i + 1, command: { op: 'UPSERT_ENTITY', name: `n${i}` }, bytes }));
  const envelope = '{"commands":[]}'.length;

  it('cuts at the command limit', () => {
    const batches = planBatches(commands(2500), REQUEST_LIMITS);
    expect(batches.map((b) => b.length)).toEqual([1000, 1000, 500]);
    expect(batches[1]![0]!.line).toBe(1001);
  });

  it('cuts at the body limit, counting the envelope and the commas', () => {
    // Three 10-byte commands need envelope + 30 + 2 commas.
    expect(planBatches(commands(3), { commands: 1000, bytes: envelope + 32 }).map((b) => b.length)).toEqual([3]);
    expect(planBatches(commands(3), { commands: 1000, bytes: envelope + 31 }).map((b) => b.length)).toEqual([2, 1]);
  });

  it('sends the whole file as one batch with --atomic, or refuses it with nothing written', () => {
    expect(planAtomicBatch(commands(1000))).toHaveLength(1);
    expect(planAtomicBatch([])).toEqual([]);
    const tooMany = failureOf(() => planAtomicBatch(commands(1200)));
    expect(tooMany.exitCode).toBe(1);
    expect(tooMany.message).toBe(
      '--atomic: 1200 commands (lines 1-1200) are more than the 1000 one atomic batch may hold; ' +
        'nothing written (without --atomic they go in several batches)',
    );
    const tooBig = failureOf(() => planAtomicBatch(commands(200, 64 * 1024)));
    expect(tooBig.message).toMatch(
      /^--atomic: 200 commands \(lines 1-200\) need 12\.5 MiB as one request, more than the 8 MiB it may carry; nothing written/,
    );
  });
});
