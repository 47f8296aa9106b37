import { commandsRequest } from '@memotrace/contracts';
import { sameFacts } from './naive-baseline';
import { type JsonCommand, emptySample, memoryBatches, scaleShape } from './workload';

const generate = (versions: number, memory: number) => {
  const sample = emptySample(`m${memory}`);
  const batches: JsonCommand[][] = [...memoryBatches(scaleShape(versions, 500), memory, sample)];
  return { sample, batches };
};

describe('scale benchmark workload', () => {
  it('is the same for the same seed and differs between memories', () => {
    expect(JSON.stringify(generate(10_000, 1).batches)).toBe(JSON.stringify(generate(10_000, 1).batches));
    expect(JSON.stringify(generate(10_000, 2).batches)).not.toBe(JSON.stringify(generate(10_000, 1).batches));
  });

  it('sends valid batches of at most the batch size, with monotone record times', () => {
    const { batches, sample } = generate(10_000, 0);
    let last = '';
    for (const batch of batches) {
      expect(batch.length).toBeLessThanOrEqual(500);
      expect(commandsRequest.safeParse({ commands: batch }).success).toBe(true);
      for (const command of batch) {
        expect(String(command['recordedAt']) > last).toBe(true);
        last = String(command['recordedAt']);
      }
    }
    expect(batches.flat()).toHaveLength(sample.commands);
  });

  it('reaches the memory share of versions with supersessions, retro-corrections and archives', () => {
    const { batches, sample } = generate(10_000, 0);
    const ops = new Map<string, number>();
    for (const command of batches.flat()) ops.set(String(command['op']), (ops.get(String(command['op'])) ?? 0) + 1);
    expect(sample.versions).toBeGreaterThanOrEqual(2500);
    expect(sample.versions).toBeLessThanOrEqual(2501);
    for (const op of ['DEFINE_RELATION', 'UPSERT_ENTITY', 'UPSERT_EDGE', 'RETRO_CORRECT', 'ARCHIVE_EDGE'])
      expect(ops.get(op) ?? 0).toBeGreaterThan(0);
    expect(sample.factIds.length).toBeGreaterThan(0);
    expect(sample.minValidMs).toBeLessThan(sample.maxValidMs);
  });
});

describe('sameFacts', () => {
  const fact = {
    factId: 'f1',
    src: 'e1',
    rel: 'knows',
    validFrom: '2024-01-01T00:00:00.000Z',
    validTo: null,
    recordedFrom: '2024-02-01T00:00:00.000Z',
  };
  it('ignores order and tells different versions apart', () => {
    const other = { ...fact, factId: 'f2' };
    expect(sameFacts([fact, other], [other, fact])).toBe(true);
    expect(sameFacts([fact], [{ ...fact, validTo: '2024-03-01T00:00:00.000Z' }])).toBe(false);
    expect(sameFacts([fact], [fact, other])).toBe(false);
  });
});
