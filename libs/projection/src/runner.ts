import type { LogStore, StoredRecord } from '@memotrace/log-store';
import type { ChangeType } from '@memotrace/domain';
import { MEMORY_STREAM_PREFIX } from '@memotrace/memory-log';
import { inTransaction } from '@memotrace/postgres';
import type { Pool, PoolClient } from 'pg';
import type { Subscription } from 'rxjs';
import {
  type Partition,
  WHOLE_LOG,
  assertPartition,
  checkpointName,
  checkpointsOfSql,
  isCheckpointOf,
  layoutCheckpoints,
  partitionOf,
} from './partitions';
import { type ProjectedRecord, type Projection, projectedRecordOf, recordsFor } from './contract';
import { deletedRecords, logsStreamDeletions } from './deleted-memories';

export interface ProjectorOptions {
  store: LogStore;
  pool: Pool;
  projections: readonly Projection[];
  /** Records per transaction (default 500). */
  batchSize?: number;
  /** A partial batch is flushed at most this long after its first record arrived (default 5 ms). */
  idleMs?: number;
  /** Pause before retrying a failed batch or re-subscribing after a subscription error (default 1000 ms). */
  retryMs?: number;
  /** Failed batches and subscription errors; the projector keeps retrying. Default: console.error. */
  onError?: (error: Error) => void;
  /** Apply only the memories of this partition, with the partition's own checkpoint (default: the whole log). */
  partition?: Partition;
}

export interface Projector {
  /** The last committed checkpoint (every record up to it is in the read models). */
  position(): number;
  /** True once the checkpoint reaches `position`; false on timeout or stop. */
  waitForPosition(position: number, timeoutMs: number): Promise<boolean>;
  /** Finishes the in-flight batch and unsubscribes; queued records are re-read on the next start. */
  stop(): Promise<void>;
}

/**
 * The checkpoint a query process sees without running a projector (0 before the first batch):
 * with partitioned projectors the lowest partition checkpoint, so every memory is projected up to it.
 */
export async function projectedPosition(pool: Pick<Pool, 'query'>, projection: string): Promise<number> {
  const { rows } = await pool.query<{ position: string | number }>(`SELECT ${projectedPositionSql('$1')} AS position`, [projection]);
  return Number(rows[0]!.position);
}

/**
 * `projectedPosition` as a scalar SQL expression (a bigint), the projection's name in parameter `param`:
 * a statement that reads it with rows of the read models sees both in one snapshot.
 */
export function projectedPositionSql(param: string): string {
  return `(SELECT coalesce(min(position), 0) FROM rm_checkpoints WHERE ${checkpointsOfSql(param)})`;
}

/**
 * Subscribes to the memory streams from the checkpoint and applies batches, each
 * in ONE transaction together with the checkpoint update: a batch is applied
 * exactly once, and a restart resumes where the last commit ended.
 */
export async function startProjector(options: ProjectorOptions): Promise<Projector> {
  const projector = new RunningProjector(options);
  await projector.start();
  return projector;
}

interface Waiter {
  position: number;
  resolve(reached: boolean): void;
  timer: NodeJS.Timeout;
}

class RunningProjector implements Projector {
  private readonly store: LogStore;
  private readonly pool: Pool;
  private readonly projections: readonly { projection: Projection; types: ReadonlySet<ChangeType>; checkpoint: string }[];
  /** Checkpoint row names (one per projection, of this partition). */
  private readonly names: string[];
  private readonly partition: Partition;
  private readonly batchSize: number;
  private readonly idleMs: number;
  private readonly retryMs: number;
  private readonly onError: (error: Error) => void;
  // The subscription has no back-pressure: unsubscribe above this many queued records, resume below lowWater.
  private readonly highWater: number;
  private readonly lowWater: number;

  private committed = 0;
  private lastQueued = 0;
  /** Whether batches check for deleted memories (the log records its deletions in this database). */
  private checksDeletions = false;
  private readonly queue: StoredRecord[] = [];
  private subscription: Subscription | undefined;
  /** Bumped on every (un)subscribe, so late deliveries of an old subscription are ignored. */
  private generation = 0;
  private paused = false;
  private running = false;
  private drained: Promise<void> = Promise.resolve();
  private stopped = false;
  private stopping: Promise<void> | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private resubscribeTimer: NodeJS.Timeout | undefined;
  private wakeSleeper: (() => void) | undefined;
  private readonly waiters = new Set<Waiter>();

  constructor(options: ProjectorOptions) {
    if (options.projections.length === 0) throw new Error('startProjector needs at least one projection');
    this.store = options.store;
    this.pool = options.pool;
    this.partition = options.partition ?? WHOLE_LOG;
    assertPartition(this.partition);
    this.projections = options.projections.map((projection) => ({
      projection,
      types: new Set(projection.handles),
      checkpoint: checkpointName(projection.name, this.partition),
    }));
    this.names = this.projections.map((p) => p.checkpoint);
    this.batchSize = Math.max(1, options.batchSize ?? 500);
    this.idleMs = options.idleMs ?? 5;
    this.retryMs = options.retryMs ?? 1000;
    this.onError = options.onError ?? ((error) => console.error('read-model projector:', error));
    this.highWater = this.batchSize * 20;
    this.lowWater = this.batchSize * 2;
  }

  async start(): Promise<void> {
    await initialiseLayout(
      this.pool,
      this.projections.map((p) => p.projection.name),
      this.partition.count,
    );
    this.checksDeletions = await logsStreamDeletions(this.pool);
    const { rows } = await this.pool.query<{ position: string | number }>('SELECT position FROM rm_checkpoints WHERE projection = ANY($1)', [
      this.names,
    ]);
    // A projection added later starts behind the others: replay from the lowest checkpoint (commit skips what each has).
    this.committed = Math.min(...rows.map((row) => Number(row.position)));
    this.lastQueued = this.committed;
    this.subscribe();
  }

  position(): number {
    return this.committed;
  }

  waitForPosition(position: number, timeoutMs: number): Promise<boolean> {
    if (this.committed >= position) return Promise.resolve(true);
    if (this.stopped) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        position,
        resolve,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.add(waiter);
    });
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.stopped = true;
      this.unsubscribe();
      clearTimeout(this.flushTimer);
      clearTimeout(this.resubscribeTimer);
      this.wakeSleeper?.();
      await this.drained;
      for (const waiter of this.waiters) {
        clearTimeout(waiter.timer);
        waiter.resolve(this.committed >= waiter.position);
      }
      this.waiters.clear();
    })();
    return this.stopping;
  }

  // --- subscription -----------------------------------------------------------

  private subscribe(): void {
    if (this.stopped) return;
    const generation = ++this.generation;
    const current = () => generation === this.generation;
    const subscription = this.store.subscribe({ fromPosition: this.lastQueued, streamPrefix: MEMORY_STREAM_PREFIX }).subscribe({
      next: (record) => current() && this.enqueue(record),
      error: (error: unknown) => current() && this.subscriptionFailed(error),
      complete: () => current() && this.subscriptionCompleted(),
    });
    // It may have delivered (and been paused, failed or completed) synchronously.
    if (current() && !subscription.closed) this.subscription = subscription;
    else subscription.unsubscribe();
  }

  private unsubscribe(): void {
    this.generation += 1;
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  private enqueue(record: StoredRecord): void {
    if (record.position <= this.lastQueued) return; // re-delivered after a re-subscribe
    this.queue.push(record);
    this.lastQueued = record.position;
    if (this.queue.length >= this.highWater) {
      this.paused = true;
      this.unsubscribe();
    }
    if (this.queue.length >= this.batchSize) this.kick();
    else this.flushTimer ??= setTimeout(() => this.kick(), this.idleMs);
  }

  private subscriptionFailed(error: unknown): void {
    this.unsubscribe();
    this.report(error);
    clearTimeout(this.resubscribeTimer);
    this.resubscribeTimer = setTimeout(() => {
      this.resubscribeTimer = undefined;
      if (!this.paused) this.subscribe();
    }, this.retryMs);
  }

  /** The store closed the subscription: flush what is queued, nothing more will come. */
  private subscriptionCompleted(): void {
    this.unsubscribe();
    this.kick();
  }

  // --- batches ----------------------------------------------------------------

  private kick(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.running || this.stopped || this.queue.length === 0) return;
    this.running = true;
    this.drained = this.drain();
  }

  private async drain(): Promise<void> {
    try {
      while (!this.stopped && this.queue.length > 0) {
        const batch = this.queue.slice(0, this.batchSize);
        try {
          await this.commit(batch);
        } catch (error) {
          this.report(error);
          // A stopping projector does not retry: its records are re-read on the next start.
          if (!this.stopped) await this.sleep(this.retryMs);
          continue;
        }
        this.queue.splice(0, batch.length);
        this.committed = Math.max(this.committed, batch[batch.length - 1]!.position);
        this.notifyWaiters();
        if (this.paused && this.queue.length <= this.lowWater) {
          this.paused = false;
          this.subscribe();
        }
      }
    } finally {
      this.running = false;
    }
  }

  /** One transaction: lock the checkpoints, apply what each projection has not seen, advance them. */
  private async commit(batch: readonly StoredRecord[]): Promise<void> {
    const last = batch[batch.length - 1]!.position;
    const { index, count } = this.partition;
    const records = batch
      .map(projectedRecordOf)
      .filter((r): r is ProjectedRecord => r !== null && (count === 1 || partitionOf(r.memoryId, count) === index));
    const each = this.projections.map((p) => ({ ...p, records: recordsFor(records, p.types) }));
    for (const { projection, records: mine } of each) {
      if (projection.prepare && mine.length > 0) await projection.prepare(mine, this.pool);
    }
    await inTransaction(this.pool, async (client) => {
      const checkpoints = await lockCheckpoints(client, this.names);
      // Records of a memory deleted since they were read (the deletion held these locks) are gone: skipped.
      const deleted = this.checksDeletions && records.length > 0 ? await deletedRecords(client, records) : () => false;
      for (const { projection, checkpoint, records: mine } of each) {
        const from = checkpoints.get(checkpoint);
        // Gone: another layout took over (see initialiseLayout); applying from 0 would double-apply.
        if (from === undefined)
          throw new Error(`checkpoint ${checkpoint} no longer exists: the projector partition layout changed; restart this projector`);
        const unseen = mine.filter((r) => r.position > from && !deleted(r));
        if (unseen.length > 0) await projection.handle(unseen, client);
      }
      await client.query('UPDATE rm_checkpoints SET position = $2 WHERE projection = ANY($1) AND position < $2', [this.names, last]);
    });
  }

  private notifyWaiters(): void {
    for (const waiter of this.waiters) {
      if (waiter.position > this.committed) continue;
      clearTimeout(waiter.timer);
      this.waiters.delete(waiter);
      waiter.resolve(true);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeSleeper = done;
    });
  }

  private report(error: unknown): void {
    this.onError(error instanceof Error ? error : new Error(String(error), { cause: error }));
  }
}

/** Row locks serialise concurrent projectors; the positions read tell what is already applied. */
async function lockCheckpoints(client: PoolClient, names: readonly string[]): Promise<Map<string, number>> {
  const { rows } = await client.query<{ projection: string; position: string | number }>(
    'SELECT projection, position FROM rm_checkpoints WHERE projection = ANY($1) ORDER BY projection FOR UPDATE',
    [names],
  );
  return new Map(rows.map((row) => [row.projection, Number(row.position)]));
}

/**
 * Creates the checkpoint rows of every partition of the layout at once (the query side
 * takes the lowest, so a partition nobody runs yet holds it back). Switching layouts is
 * only safe when the old rows agree on one position (projectors stopped at one point):
 * then they are replaced; otherwise refuse rather than apply anything twice.
 */
async function initialiseLayout(pool: Pool, projections: readonly string[], count: number): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('memotrace rm_checkpoints layout'))");
    for (const projection of projections) {
      const { rows } = await client.query<{ projection: string; position: string }>(
        'SELECT projection, position FROM rm_checkpoints ' +
          "WHERE projection = $1 OR left(projection, length($1) + 1) = $1 || '@' ORDER BY projection FOR UPDATE",
        [projection],
      );
      const mine = layoutCheckpoints(projection, count);
      const others = rows.filter((r) => isCheckpointOf(r.projection, projection) && !mine.includes(r.projection));
      const own = rows.filter((r) => mine.includes(r.projection));
      if (own.length === mine.length && others.length === 0) continue;
      const positions = new Set([...others, ...own].map((r) => Number(r.position)));
      if (positions.size > 1) {
        throw new Error(
          `cannot run ${projection} in ${count} partition(s): ` +
            `its checkpoints ${rows.map((r) => `${r.projection}=${r.position}`).join(', ')} differ; ` +
            'let the running projectors reach one position and stop them (or rebuild) before changing the partition count',
        );
      }
      const start = positions.size === 1 ? [...positions][0]! : 0;
      if (others.length > 0) await client.query('DELETE FROM rm_checkpoints WHERE projection = ANY($1)', [others.map((r) => r.projection)]);
      await client.query('INSERT INTO rm_checkpoints (projection, position) SELECT unnest($1::text[]), $2 ON CONFLICT (projection) DO NOTHING', [
        mine,
        start,
      ]);
    }
  });
}
