import { type Instant, canonicalId, joinClasses } from '@memotrace/domain';

export interface MergeRow {
  srcId: string;
  dstId: string;
  srcRoot: string;
  dstRoot: string;
  recordedAt: Instant;
}

/**
 * The merge forest at a record time, rebuilt from the merges recorded up to it,
 * in log order, exactly as `evolve` builds `mergedInto` and `members`.
 */
export class MergeForest {
  readonly mergedInto = new Map<string, string>();
  private readonly members = new Map<string, string[]>();

  constructor(readonly merges: readonly MergeRow[]) {
    for (const { srcRoot, dstRoot } of merges) {
      this.mergedInto.set(srcRoot, dstRoot);
      this.members.set(dstRoot, joinClasses(this.members.get(dstRoot) ?? [dstRoot], this.members.get(srcRoot) ?? [srcRoot]));
      this.members.delete(srcRoot);
    }
  }

  canonical(id: string): string {
    return canonicalId(this.mergedInto, id);
  }

  /** Every id whose canonical id is `id`'s (root first, then in merge order); `[id]` when never merged. */
  classOf(id: string): string[] {
    const root = this.canonical(id);
    return this.members.get(root) ?? [root];
  }
}
