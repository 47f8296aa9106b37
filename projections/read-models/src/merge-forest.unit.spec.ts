import { fold } from '@memotrace/domain';
import { MergeForest } from './merge-forest';
import { randomLog } from './testing/random-log';

describe('MergeForest', () => {
  it('rebuilds canonical ids and member classes exactly as evolve does, at every record time', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const log = randomLog('m', seed, 80);
      const full = fold(log.records);
      for (const r of log.recordedAts) {
        const state = fold(log.records, r);
        const forest = new MergeForest(full.merges.filter((m) => m.recordedAt <= r));
        expect(forest.mergedInto).toEqual(state.classes.mergedInto);
        for (const id of [...state.entities.keys(), 'never-registered']) {
          expect(forest.canonical(id)).toBe(state.classes.canonical(id));
          expect(forest.classOf(id)).toEqual(state.classes.classOf(id));
        }
      }
    }
  });

  it('puts the root first, then the merged classes in merge order', () => {
    const merge = (srcRoot: string, dstRoot: string) => ({
      srcId: srcRoot,
      dstId: dstRoot,
      srcRoot,
      dstRoot,
      recordedAt: '2024-05-06T00:00:00.000Z',
    });
    const forest = new MergeForest([merge('b', 'a'), merge('d', 'c'), merge('c', 'a')]);
    expect(forest.classOf('d')).toEqual(['a', 'b', 'c', 'd']);
    expect(forest.canonical('d')).toBe('a');
    expect(forest.classOf('z')).toEqual(['z']);
  });
});
