import { commandsRequest } from '@memotrace/contracts';
import { namedEntities } from './names';
import { type JsonCommand, emptyWorkloadSample, sustainedBatches, sustainedSetup, workloadBatches } from './workload';

const generate = (versions: number, seed = 7) => {
  const sample = emptyWorkloadSample();
  const batches = [...workloadBatches({ memoryId: 'm', versions, entities: 300, batchSize: 500, seed }, sample)];
  return { sample, batches };
};

describe('compare benchmark workload', () => {
  it('is the same for the same seed and differs for another', () => {
    expect(JSON.stringify(generate(3000).batches)).toBe(JSON.stringify(generate(3000).batches));
    expect(JSON.stringify(generate(3000, 8).batches)).not.toBe(JSON.stringify(generate(3000).batches));
  });

  it('writes the setup, then edges until the versions reach the target exactly', () => {
    const { batches, sample } = generate(3001);
    expect(sample.versions).toBe(3001);
    expect(sample.supersessions).toBeGreaterThan(0);
    const setup = batches.filter((b) => !b.edges).flatMap((b) => b.commands);
    const edges = batches.filter((b) => b.edges).flatMap((b) => b.commands);
    expect(setup).toHaveLength(sample.setupCommands);
    expect(edges).toHaveLength(sample.edgeCommands);
    expect(edges.every((c) => c['op'] === 'UPSERT_EDGE')).toBe(true);
    // The setup comes first: the timed part holds only edges.
    expect(batches.findIndex((b) => b.edges)).toBe(batches.filter((b) => !b.edges).length);
  });

  it('sends valid batches of at most the batch size, unique command ids and rising record times', () => {
    const { batches } = generate(3000);
    const ids = new Set<unknown>();
    let last = '';
    for (const { commands } of batches) {
      expect(commands.length).toBeLessThanOrEqual(500);
      expect(commandsRequest.safeParse({ commands }).success).toBe(true);
      for (const command of commands) {
        ids.add(command['commandId']);
        expect(String(command['recordedAt']) > last).toBe(true);
        last = String(command['recordedAt']);
      }
    }
    expect(ids.size).toBe(batches.reduce((n, b) => n + b.commands.length, 0));
  });

  it('names every entity distinctly, past the name lists too', () => {
    const names = namedEntities(5000).map((e) => e.name);
    expect(new Set(names).size).toBe(5000);
    expect(new Set(namedEntities(5000).map((e) => e.id)).size).toBe(5000);
  });

  it('feeds the sustained memory valid batches', () => {
    const setup = sustainedSetup('s', 500, 500);
    const batches = sustainedBatches('s', 500, 500, 1);
    const edges: JsonCommand[][] = [batches.next().value!, batches.next().value!];
    for (const commands of [...setup, ...edges]) expect(commandsRequest.safeParse({ commands }).success).toBe(true);
    expect(new Set(edges.flat().map((c) => c['factId'])).size).toBe(1000);
  });
});
