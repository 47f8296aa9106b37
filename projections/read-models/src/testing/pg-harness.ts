import {
  type Command,
  type Instant,
  type MemoryEvent,
  type MemoryState,
  DomainError,
  decideBatch,
  fold,
  initialState,
} from '@memotrace/domain';
import { PostgresEventStore, eventStoreMigrations } from '@memotrace/event-store';
import { memoryStreamId, toMemoryEvent, toNewEvents } from '@memotrace/memory-log';
import { type TestDatabase, createTestDatabase, migrate } from '@memotrace/postgres';
import { PostgresMemoryQueries } from '../postgres-memory-queries';
import { type Projector, type ProjectorOptions, startProjector } from '@memotrace/projection';
import { readModelsProjection } from '../read-models-projection';
import { readModelMigrations } from '../schema';
import type { CommandDraft } from './random-log';

/** A migrated test database with the PostgreSQL event store, the SQL queries, and projectors to start. */
export interface Harness {
  db: TestDatabase;
  store: PostgresEventStore;
  queries: PostgresMemoryQueries;
  startProjector(options?: Partial<ProjectorOptions>): Promise<Projector>;
  /** Appends decided events to the memory's stream; returns the position of the last one. */
  append(memoryId: string, events: readonly MemoryEvent[]): Promise<number>;
  /** The memory's log as replay reads it (back from the store). */
  log(memoryId: string): Promise<MemoryEvent[]>;
  close(): Promise<void>;
}

export async function openHarness(): Promise<Harness> {
  const db = await createTestDatabase();
  await migrate(db.pool, [...eventStoreMigrations, ...readModelMigrations]);
  const store = new PostgresEventStore(db.pool, { pollIntervalMs: 50 });
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
    async append(memoryId, events) {
      const result = await store.append(memoryStreamId(memoryId), toNewEvents(memoryId, events), { expectedRevision: 'any' });
      return result.position;
    },
    async log(memoryId) {
      return (await store.readStream(memoryStreamId(memoryId))).map(toMemoryEvent);
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
  private readonly events: MemoryEvent[] = [];
  private counter = 0;

  constructor(
    private readonly harness: Harness,
    readonly memoryId: string,
    private readonly now: Instant = '2024-06-01T00:00:00.000Z',
  ) {}

  /** Appends the batch; throws the DomainError of a rejected batch. Returns the log position (or null: nothing written). */
  async when(...commands: (CommandDraft & { commandId?: string })[]): Promise<number | null> {
    const batch = commands.map((c) => ({ ...c, commandId: c.commandId ?? `${this.memoryId}-c${++this.counter}` }) as Command);
    let decided: MemoryEvent[];
    try {
      decided = decideBatch(this.memoryId, this.state, batch, this.now).events;
    } catch (error) {
      if (error instanceof DomainError) this.state = fold(this.events);
      throw error;
    }
    if (decided.length === 0) return null;
    this.events.push(...decided);
    return this.harness.append(this.memoryId, decided);
  }
}
