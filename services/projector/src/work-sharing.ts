import type { LogStore } from '@memotrace/log-store';
import { readModelsProjection } from '@memotrace/read-models';
import { type Projector, startProjector } from '@memotrace/projection';
import type { Pool, PoolClient } from 'pg';

/**
 * Several projector processes share the read-model work. Memories are hashed
 * into `partitions` partitions (projections/read-models/src/partitions.ts); a process
 * owns a partition while it holds the session advisory lock (PARTITION_KEY, index) on
 * its lock connection, and runs one partition projector per owned partition. Each
 * process also holds a membership lock (MEMBER_KEY, random id), so every process can
 * see, in pg_locks, who is alive and how many partitions each owns, and rebalance:
 * take free partitions up to its fair share, hand one back while it owns two more
 * than the least loaded member. A process that dies loses its connection and so its
 * locks; the others take its partitions over on their next round.
 *
 * The locks only share the work out: exactly-once comes from each partition's
 * checkpoint row, locked and advanced in the transaction that writes the batch, so
 * even two processes briefly running one partition (a handover) apply nothing twice.
 */
const MEMBER_KEY = 0x4d54_4d42; // "MTMB"
const PARTITION_KEY = 0x4d54_5054; // "MTPT"

export interface WorkSharingOptions {
  store: LogStore;
  pool: Pool;
  partitions: number;
  /** How often ownership is re-examined (default 1000 ms). */
  rebalanceMs?: number;
  batchSize?: number;
  onError: (error: Error) => void;
  onChange?: (owned: readonly number[]) => void;
}

export interface WorkSharingProjector {
  /** Partitions this process runs now. */
  owned(): number[];
  stop(): Promise<void>;
}

interface LockRow {
  pid: number;
  key: string;
  id: string;
}

export async function startWorkSharingProjector(options: WorkSharingOptions): Promise<WorkSharingProjector> {
  const sharing = new WorkSharing(options);
  await sharing.round();
  sharing.schedule();
  return sharing;
}

class WorkSharing implements WorkSharingProjector {
  private readonly running = new Map<number, Projector>();
  private lockClient: PoolClient | undefined;
  private memberId = 0;
  private timer: NodeJS.Timeout | undefined;
  private inRound: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly rebalanceMs: number;

  constructor(private readonly options: WorkSharingOptions) {
    if (!Number.isInteger(options.partitions) || options.partitions < 1)
      throw new Error(`partitions must be a positive integer, got ${options.partitions}`);
    this.rebalanceMs = options.rebalanceMs ?? 1000;
  }

  owned(): number[] {
    return [...this.running.keys()].sort((a, b) => a - b);
  }

  schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.inRound = this.round().catch((error: Error) => this.options.onError(error));
      void this.inRound.finally(() => this.schedule());
    }, this.rebalanceMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.inRound.catch(() => undefined);
    await Promise.all([...this.running.values()].map((p) => p.stop()));
    this.running.clear();
    // Closing the lock connection releases every lock of this process.
    this.lockClient?.release(true);
    this.lockClient = undefined;
  }

  /** One rebalancing round: join, look at who owns what, take or hand back partitions. */
  async round(): Promise<void> {
    if (this.stopped) return;
    const client = await this.connection();
    const { rows } = await client.query<LockRow>(
      `SELECT l.pid, l.classid::text AS key, l.objid::text AS id FROM pg_locks l
        WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND l.classid IN ($1::bigint::oid, $2::bigint::oid)`,
      [MEMBER_KEY, PARTITION_KEY],
    );
    const load = new Map<number, number>(rows.filter((r) => Number(r.key) === MEMBER_KEY).map((r) => [r.pid, 0]));
    const taken = new Set<number>();
    for (const row of rows.filter((r) => Number(r.key) === PARTITION_KEY)) {
      taken.add(Number(row.id));
      load.set(row.pid, (load.get(row.pid) ?? 0) + 1);
    }
    const mine = this.running.size;
    const fairShare = Math.ceil(this.options.partitions / Math.max(1, load.size));
    const leastLoaded = Math.min(...load.values());
    if (mine > fairShare || (mine - leastLoaded >= 2 && mine > 1)) {
      await this.release(this.owned()[mine - 1]!);
      return;
    }
    // Start the search at a member-specific offset, so joining processes do not all race for partition 0.
    for (let k = 0; k < this.options.partitions && this.running.size < fairShare; k++) {
      const index = (this.memberId + k) % this.options.partitions;
      if (taken.has(index) || this.running.has(index)) continue;
      const { rows: got } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [PARTITION_KEY, index]);
      if (got[0]?.ok) await this.run(index);
    }
  }

  private async run(index: number): Promise<void> {
    try {
      const projector = await startProjector({
        store: this.options.store,
        pool: this.options.pool,
        projections: [readModelsProjection],
        partition: { index, count: this.options.partitions },
        onError: this.options.onError,
        ...(this.options.batchSize !== undefined ? { batchSize: this.options.batchSize } : {}),
      });
      this.running.set(index, projector);
      this.options.onChange?.(this.owned());
    } catch (error) {
      await this.lockClient?.query('SELECT pg_advisory_unlock($1, $2)', [PARTITION_KEY, index]);
      throw error;
    }
  }

  /** Finishes the partition's in-flight batch, then lets another process have it. */
  private async release(index: number): Promise<void> {
    await this.running.get(index)?.stop();
    this.running.delete(index);
    await this.lockClient?.query('SELECT pg_advisory_unlock($1, $2)', [PARTITION_KEY, index]);
    this.options.onChange?.(this.owned());
  }

  /** The dedicated session holding this process's locks; losing it loses them, so the partitions stop too. */
  private async connection(): Promise<PoolClient> {
    if (this.lockClient) return this.lockClient;
    const client = await this.options.pool.connect();
    client.on('error', (error) => {
      this.options.onError(error);
      if (this.lockClient !== client) return;
      this.lockClient = undefined;
      const partitions = [...this.running.values()];
      this.running.clear();
      void Promise.all(partitions.map((p) => p.stop())).then(() => this.options.onChange?.(this.owned()));
    });
    for (;;) {
      this.memberId = Math.floor(Math.random() * 0x7fff_ffff);
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [MEMBER_KEY, this.memberId]);
      if (rows[0]!.ok) break;
    }
    this.lockClient = client;
    return client;
  }
}
