import fc from 'fast-check';
import { MergeClasses } from './merge-classes';

/** The forest as first written: follow the recorded parents; each class an array, dst's members first. */
class ReferenceForest {
  readonly mergedInto = new Map<string, string>();
  private readonly members = new Map<string, string[]>();

  merge(srcRoot: string, dstRoot: string): void {
    this.members.set(dstRoot, [...this.classOf(dstRoot), ...this.classOf(srcRoot)]);
    this.members.delete(srcRoot);
    this.mergedInto.set(srcRoot, dstRoot);
  }

  canonical(id: string): string {
    let current = id;
    for (let next = this.mergedInto.get(current); next !== undefined; next = this.mergedInto.get(current)) current = next;
    return current;
  }

  classOf(id: string): string[] {
    const root = this.canonical(id);
    return this.members.get(root) ?? [root];
  }
}

const ids = Array.from({ length: 12 }, (_, i) => `e${i}`);

/** Merges as a decider emits them: pairs of ids, each merge joining their roots when they differ. */
const mergesArb = fc.array(fc.tuple(fc.constantFrom(...ids), fc.constantFrom(...ids)), { maxLength: 30 });

describe('MergeClasses', () => {
  it('answers canonical ids, classes in merge order and class sizes as the reference forest does, after every merge', () => {
    fc.assert(
      fc.property(mergesArb, (pairs) => {
        const classes = new MergeClasses();
        const reference = new ReferenceForest();
        for (const [src, dst] of pairs) {
          const srcRoot = reference.canonical(src);
          const dstRoot = reference.canonical(dst);
          if (srcRoot === dstRoot) continue;
          classes.merge(srcRoot, dstRoot);
          reference.merge(srcRoot, dstRoot);
          for (const id of [...ids, 'never-registered']) {
            expect(classes.canonical(id)).toBe(reference.canonical(id));
            expect(classes.classOf(id)).toEqual(reference.classOf(id));
            expect(classes.classSize(id)).toBe(reference.classOf(id).length);
          }
          expect([...classes.mergedInto]).toEqual([...reference.mergedInto]);
        }
      }),
      { numRuns: 1_000, seed: 7 },
    );
  });

  it('keeps the merge target canonical when the larger class is merged into a new entity', () => {
    const classes = new MergeClasses();
    classes.merge('b', 'a');
    classes.merge('c', 'a');
    classes.merge('a', 'd');
    expect(classes.canonical('b')).toBe('d');
    expect(classes.classOf('b')).toEqual(['d', 'a', 'b', 'c']);
    expect(classes.classSize('c')).toBe(4);
    expect([...classes.mergedInto]).toEqual([
      ['b', 'a'],
      ['c', 'a'],
      ['a', 'd'],
    ]);
  });

  it('answers a chain of 20,000 merges, each class into a new entity, at its far end', () => {
    const classes = new MergeClasses();
    const n = 20_000;
    for (let i = 1; i < n; i++) classes.merge(`e${i - 1}`, `e${i}`);
    expect(classes.canonical('e0')).toBe(`e${n - 1}`);
    const members = classes.classOf('e0');
    expect(members).toHaveLength(n);
    expect(members.slice(0, 3)).toEqual([`e${n - 1}`, `e${n - 2}`, `e${n - 3}`]);
    expect(members[n - 1]).toBe('e0');
  });
});
