import { type Instant, MergeClasses } from '@memotrace/domain';

export interface MergeRow {
  srcId: string;
  dstId: string;
  srcRoot: string;
  dstRoot: string;
  recordedAt: Instant;
}

/**
 * The merge forest at a record time, rebuilt from the merges recorded up to it,
 * in log order, exactly as `evolve` builds its merge classes.
 */
export class MergeForest extends MergeClasses {
  constructor(readonly merges: readonly MergeRow[]) {
    super();
    for (const { srcRoot, dstRoot } of merges) this.merge(srcRoot, dstRoot);
  }
}
