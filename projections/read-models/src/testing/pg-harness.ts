import { type Command, type Instant, type MemoryRecord, type MemoryState, DomainError, decideBatch, fold, initialState } from '@memotrace/domain';
import { PostgresLogStore, logStoreMigrations } from '@memotrace/log-store';
import { memoryStreamId, toMemoryRecord, toNewRecords } from '@memotrace/memory-log';
import { type TestDatabase, createTestDatabase, migrate } from '@memotrace/postgres';
import { PostgresMemoryQueries } from '../postgres-memory-queries';
import { type Projector, type ProjectorOptions, startProjector } from '@memotrace/projection';
import { readModelsProjection } from '../read-models-projection';
import { readModelMigrations } from '../schema';
import type { CommandDraft } from './random-log';

/** A migrated test database with the PostgreSQL record store, the SQL queries, and projectors to start. */
export interface Harness {
  db: TestDatabase;
  store: PostgresLogStore;
  queries: PostgresMemoryQueries;
  startProjector(options?: Partial<ProjectorOptions>): Promise<Projector>;
  /** Appends decided records to the memory's stream; returns the position of the last one. */
  append(memoryId: string, records: readonly MemoryRecord[]): Promise<number>;
  /** The memory's log as replay reads it (back from the store). */
  log(memoryId: string): Promise<MemoryRecord[]>;
  close(): Promise<void>;
}

export async function openHarness(): Promise<Harness> {
  const db = await createTestDatabase();
  await migrate(db.pool, [...logStoreMigrations, ...readModelMigrations]);
  const store = new PostgresLogStore(db.pool, { pollIntervalMs: 50 });
  const projectors: Projector[] = [];
  return {
    db,
    store,
    queries: new PostgresMemoryQueries(db.pool),
    async startProjector(options = {}) {
      const projector = await startProjector({ store, pool: db.pool, projections: [readModelsProjection], retryMs: 50, ...options });
      projectors.push(projector);
      return projector;
    },
    async append(memoryId, records) {
      const result = await store.append(memoryStreamId(memoryId), toNewRecords(memoryId, records), { expectedRevision: 'any' });
      return result.position;
    },
    async log(memoryId) {
      return (await store.readStream(memoryStreamId(memoryId))).map(toMemoryRecord);
    },
    async close() {
      for (const projector of projectors) await projector.stop();
      await store.close();
      await db.drop();
    },
  };
}

/** Decides command batches like the command service (atomic, record time monotone) and appends them. */
export class MemoryWriter {
  private state: MemoryState = initialState();
  private readonly records: MemoryRecord[] = [];
  private counter = 0;

  constructor(
    private readonly harness: Harness,
    readonly memoryId: string,
    private readonly now: Instant = '2024-06-01T00:00:00.000Z',
  ) {}

  /** Appends the batch; throws the DomainError of a rejected batch. Returns the log position (or null: nothing written). */
  async when(...commands: (CommandDraft & { commandId?: string })[]): Promise<number | null> {
    const batch = commands.map((c) => ({ ...c, commandId: c.commandId ?? `${this.memoryId}-c${++this.counter}` }) as Command);
    let decided: MemoryRecord[];
    try {
      decided = decideBatch(this.memoryId, this.state, batch, this.now).records;
    } catch (error) {
      if (error instanceof DomainError) this.state = fold(this.records);
      throw error;
    }
    if (decided.length === 0) return null;
    this.records.push(...decided);
    return this.harness.append(this.memoryId, decided);
  }
}
