import type { MemoryQueries } from '@memotrace/domain';
import type { EventStore } from '@memotrace/event-store';
import { HttpError } from '@memotrace/http-kit';
import { memoryStreamId } from '@memotrace/memory-log';

/** How far the read models have got; `waitFor` resolves false on timeout. */
export interface ProjectionProgress {
  waitFor(position: number, timeoutMs: number): Promise<boolean>;
}

export interface ConsistencyOptions {
  /** Bound of a `minPosition` wait (read-your-writes). */
  minPositionTimeoutMs: number;
  /** Without minPosition, wait this long for the read models to reach the memory's last event. */
  ownWritesWaitMs: number;
}

/**
 * Picks the answer source of a query: exact replay of the log, or the read models
 * once they have caught up with the requested position (SPEC `minPosition`).
 */
export class ConsistencyGate {
  constructor(
    private readonly projection: MemoryQueries,
    private readonly replay: MemoryQueries,
    private readonly store: EventStore,
    private readonly progress: ProjectionProgress,
    private readonly options: ConsistencyOptions,
  ) {}

  async source(memoryId: string, consistency: 'projection' | 'replay', minPosition?: number): Promise<MemoryQueries> {
    if (consistency === 'replay') {
      // The log answers at once; a position it never handed out is still bad input.
      if (minPosition !== undefined) await this.assertHandedOut(minPosition);
      return this.replay;
    }
    if (minPosition === undefined) {
      // The memory's own last event, not the log head: other memories' backlog does not delay this read.
      await this.progress.waitFor(await this.store.streamPosition(memoryStreamId(memoryId)), this.options.ownWritesWaitMs);
      return this.projection;
    }
    if (await this.progress.waitFor(minPosition, 0)) return this.projection;
    // A position no append has handed out would only time out: say so at once.
    await this.assertHandedOut(minPosition);
    if (await this.progress.waitFor(minPosition, this.options.minPositionTimeoutMs)) return this.projection;
    throw new HttpError('TIMEOUT', `read models did not reach position ${minPosition} within ${this.options.minPositionTimeoutMs} ms`);
  }

  private async assertHandedOut(minPosition: number): Promise<void> {
    if (minPosition > (await this.store.highestPosition())) {
      throw new HttpError('INVALID_REQUEST', `minPosition ${minPosition} is beyond the log head`, [{ path: 'minPosition', message: 'no such position in the log' }]);
    }
  }
}
