import type { MemoryQueries } from '@memotrace/domain';
import type { LogStore } from '@memotrace/log-store';
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
    private readonly store: LogStore,
    private readonly progress: ProjectionProgress,
    private readonly options: ConsistencyOptions,
  ) {}

  async source(memoryId: string, consistency: 'projection' | 'replay', minPosition?: number): Promise<MemoryQueries> {
    // A position the memory never handed out is bad input, also for the log, which answers at once.
    const logPosition = minPosition === undefined ? undefined : await this.logPositionOf(memoryId, minPosition);
    if (consistency === 'replay') return this.replay;
    if (logPosition === undefined) {
      // The memory's own last event, not the log head: other memories' backlog does not delay this read.
      await this.progress.waitFor(await this.store.streamPosition(memoryStreamId(memoryId)), this.options.ownWritesWaitMs);
      return this.projection;
    }
    if (await this.progress.waitFor(logPosition, this.options.minPositionTimeoutMs)) return this.projection;
    throw new HttpError(
      'TIMEOUT',
      `read models did not reach position ${minPosition} of memory ${memoryId} within ${this.options.minPositionTimeoutMs} ms`,
    );
  }

  /**
   * Positions are per memory (the length of its log after a write, SPEC `position`), so a token
   * says nothing about other memories; the read models' checkpoint is a log position: the one of
   * the memory's event that made it that long.
   */
  private async logPositionOf(memoryId: string, minPosition: number): Promise<number> {
    if (minPosition === 0) return 0;
    const [event] = await this.store.readStream(memoryStreamId(memoryId), { fromRevision: minPosition - 1, maxCount: 1 });
    if (event === undefined) {
      throw new HttpError('INVALID_REQUEST', `minPosition ${minPosition} is beyond memory ${memoryId}'s log`, [
        { path: 'minPosition', message: 'no such position in this memory' },
      ]);
    }
    return event.position;
  }
}
