import type { Checkpointed, MemoryQueries, ProjectedMemoryQueries } from '@memotrace/domain';
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

type Consistency = 'projection' | 'replay';

/** One read as each source answers it: the read models also name the checkpoint of their snapshot. */
export interface SourcedRead<T> {
  replay(queries: MemoryQueries): Promise<T>;
  projection(queries: ProjectedMemoryQueries): Promise<Checkpointed<T>>;
}

/**
 * Picks the answer source of a query: exact replay of the log, or the read models
 * once they have caught up with the requested position (SPEC `minPosition`).
 */
export class ConsistencyGate {
  constructor(
    private readonly projection: ProjectedMemoryQueries,
    private readonly replay: MemoryQueries,
    private readonly store: LogStore,
    private readonly progress: ProjectionProgress,
    private readonly options: ConsistencyOptions,
  ) {}

  /**
   * Also the existence check of every read (SPEC §5.0): a memory with no record is 404 UNKNOWN_MEMORY, for
   * either source. It costs nothing extra: the record looked up is the one the read models wait for (the
   * memory's last, or the one at minPosition), read for either source so replay and projection agree.
   */
  async source(memoryId: string, consistency: Consistency, minPosition?: number): Promise<MemoryQueries> {
    if (consistency === 'replay') {
      await this.neededPosition(memoryId, minPosition);
      return this.replay;
    }
    await this.projectedTo(memoryId, minPosition);
    return this.projection;
  }

  /**
   * Waits, as `source` does, for the read models to reach the read's log position (the record at
   * minPosition, else the memory's last) and answers that position: a search asks its index for it too.
   */
  async projectedTo(memoryId: string, minPosition?: number): Promise<number> {
    const logPosition = await this.neededPosition(memoryId, minPosition);
    await this.projected(memoryId, logPosition, minPosition);
    return logPosition;
  }

  /**
   * `read` from the source `source` picks, by the same rules, in one round trip's time when the read models
   * have caught up: the position lookup and the read models' read run at once, and the read's answer is
   * kept when its snapshot's checkpoint has reached the position; else the read runs again once they have.
   * The lookup decides first: an unknown memory or a bad position is the answer whatever the read found.
   */
  async read<T>(memoryId: string, consistency: Consistency, minPosition: number | undefined, read: SourcedRead<T>): Promise<T> {
    if (consistency === 'replay') return read.replay(await this.source(memoryId, consistency, minPosition));
    const early = read.projection(this.projection);
    early.catch(() => undefined); // awaited below unless the lookup fails first, whose error is the answer
    const logPosition = await this.neededPosition(memoryId, minPosition);
    const { answer, checkpoint } = await early;
    if (checkpoint >= logPosition) return answer;
    await this.projected(memoryId, logPosition, minPosition);
    return (await read.projection(this.projection)).answer;
  }

  /** The log position the read models must reach: the record at minPosition, else the memory's last (404 without one). */
  private neededPosition(memoryId: string, minPosition: number | undefined): Promise<number> {
    // A position the memory never handed out is bad input, also for the log, which answers at once.
    return minPosition ? this.logPositionOf(memoryId, minPosition) : this.lastPositionOf(memoryId);
  }

  /** Waits for the read models to reach `logPosition`: a timeout is an error only for a read that asked for a minPosition. */
  private async projected(memoryId: string, logPosition: number, minPosition: number | undefined): Promise<void> {
    if (!minPosition) {
      // The memory's own last record, not the log head: other memories' backlog does not delay this read.
      await this.progress.waitFor(logPosition, this.options.ownWritesWaitMs);
      return;
    }
    if (await this.progress.waitFor(logPosition, this.options.minPositionTimeoutMs)) return;
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
    const [event] = await this.store.readStream(memoryStreamId(memoryId), { fromRevision: minPosition - 1, maxCount: 1 });
    if (event === undefined) {
      await this.lastPositionOf(memoryId); // no memory at all is 404, not a bad position
      throw new HttpError('INVALID_REQUEST', `minPosition ${minPosition} is beyond memory ${memoryId}'s log`, [
        { path: 'minPosition', message: 'no such position in this memory' },
      ]);
    }
    return event.position;
  }

  /** The log position of the memory's last record; 404 UNKNOWN_MEMORY for a memory without one. */
  private async lastPositionOf(memoryId: string): Promise<number> {
    const position = await this.store.streamPosition(memoryStreamId(memoryId));
    if (position === 0) throw unknownMemory(memoryId);
    return position;
  }
}

/** SPEC §5.0: a memory exists from its first accepted command; reading one that does not is 404. */
export function unknownMemory(memoryId: string): HttpError {
  return new HttpError('UNKNOWN_MEMORY', `unknown memory ${JSON.stringify(memoryId)}: it has no accepted command`);
}
