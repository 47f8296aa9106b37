import { assertPartition, checkpointName, isCheckpointOf, layoutCheckpoints, partitionOf } from './partitions';

describe('projector partitions', () => {
  it('hashes every memory into one partition, stably, spreading them', () => {
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) {
      const p = partitionOf(`memory-${i}`, 4);
      expect(partitionOf(`memory-${i}`, 4)).toBe(p);
      counts[p]! += 1;
    }
    for (const n of counts) expect(n).toBeGreaterThan(800);
    expect(partitionOf('anything', 1)).toBe(0);
  });

  it('names checkpoint rows so a single projector keeps the plain name', () => {
    expect(checkpointName('read-models', { index: 0, count: 1 })).toBe('read-models');
    expect(layoutCheckpoints('read-models', 3)).toEqual(['read-models@0/3', 'read-models@1/3', 'read-models@2/3']);
    expect(isCheckpointOf('read-models', 'read-models')).toBe(true);
    expect(isCheckpointOf('read-models@1/3', 'read-models')).toBe(true);
    expect(isCheckpointOf('read-models-search', 'read-models')).toBe(false);
    expect(isCheckpointOf('read-models@x', 'read-models')).toBe(false);
  });

  it('rejects impossible partitions', () => {
    expect(() => assertPartition({ index: 2, count: 2 })).toThrow(/index/);
    expect(() => assertPartition({ index: 0, count: 0 })).toThrow(/count/);
    expect(() => assertPartition({ index: 1, count: 4 })).not.toThrow();
  });
});
