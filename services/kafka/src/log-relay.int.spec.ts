import { InMemorySubjectKeyStore } from '@memotrace/subject-keys/testing';
import { CommandHandler } from '@memotrace/command-service';
import { PostgresLogStore, type StoredRecord, logStoreMigrations } from '@memotrace/log-store';
import { type TestService, startTestService } from '@memotrace/memotrace/testing';
import { MEMORY_STREAM_PREFIX } from '@memotrace/memory-log';
import { createPool, migrate } from '@memotrace/postgres';
import { type TestDatabase, createTestDatabase } from '@memotrace/postgres/testing';
import type { KafkaConfig } from '@memotrace/runtime';
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { POSITION_HEADER } from './messages';
import { PositionFilter } from './position-filter';
import { type ReadMessage, TopicReader, describeWithKafka, testKafka, testKafkaConfig } from './testing/kafka-test-kit';

/** Issue 3, events out: the checkpointed relay, against a real broker. */

/**
 * The memory events of the log, once all `expected` are readable (readers see only the
 * safe prefix, which any running transaction on the server may hold back a moment).
 */
async function allLogEvents(store: PostgresLogStore, expected: number): Promise<StoredRecord[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const out: StoredRecord[] = [];
    for (;;) {
      const page = await store.readAll({ fromPosition: out.at(-1)?.position ?? 0, maxCount: 1000, streamPrefix: MEMORY_STREAM_PREFIX });
      if (page.length === 0) break;
      out.push(...page);
    }
    if (out.length >= expected || Date.now() > deadline) return out;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Per memory, the positions in the order a consumer of the topic sees them (one memory = one partition). */
function positionsByMemory(messages: readonly ReadMessage[]): Map<string, number[]> {
  const byMemory = new Map<string, number[]>();
  for (const m of messages) byMemory.set(m.key!, [...(byMemory.get(m.key!) ?? []), m.value.position]);
  return byMemory;
}

const entity = (memory: string, i: number) => ({ op: 'UPSERT_ENTITY' as const, commandId: `${memory}-${i}`, entityId: `e${i}`, name: `Entity ${i}` });

describeWithKafka('Kafka events out: the relay', () => {
  describe('inside the all-in-one service', () => {
    let config: KafkaConfig;
    let svc: TestService;
    let reader: TopicReader;
    beforeAll(async () => {
      config = testKafkaConfig();
      svc = await startTestService({ kafka: config });
      reader = await TopicReader.start(testKafka(config), [config.topics.events]);
    });
    afterAll(async () => {
      await reader?.stop();
      await svc?.stop();
    });

    it('delivers every committed event exactly once, keyed by memory, in position order per memory', async () => {
      const memories = ['rel-a', 'rel-b', 'rel-c', 'rel-d'];
      await Promise.all(
        memories.map(async (memory) => {
          for (let batch = 0; batch < 10; batch++) {
            const response = await svc.commands(
              memory,
              Array.from({ length: 10 }, (_, i) => entity(memory, batch * 10 + i)),
            );
            expect(response.status).toBe(200);
          }
        }),
      );
      const pool = createPool(svc.service.databaseUrl);
      const log = await allLogEvents(new PostgresLogStore(pool), memories.length * 100).finally(() => pool.end());
      expect(log).toHaveLength(memories.length * 100);
      const messages = await reader.waitFor((seen) => seen.length >= log.length, `${log.length} events`);
      await new Promise((r) => setTimeout(r, 500)); // anything extra (a duplicate) would show up now
      expect(messages).toHaveLength(log.length);
      expect(messages.map((m) => m.value.position).sort((a, b) => a - b)).toEqual(log.map((e) => e.position));
      for (const m of messages) {
        expect(m.key).toBe(m.value.memoryId);
        expect(m.headers[POSITION_HEADER]).toBe(String(m.value.position));
      }
      for (const [memory, positions] of positionsByMemory(messages)) {
        expect(positions).toEqual(log.filter((e) => e.streamId === `memory-${memory}`).map((e) => e.position));
      }
      expect(svc.service.kafka!.relay.position).toBe(log.at(-1)!.position);
    });
  });

  describe('killed mid-stream and restarted (npm run start:kafka)', () => {
    let database: TestDatabase;
    let store: PostgresLogStore;
    let config: KafkaConfig;
    let reader: TopicReader;
    let child: ChildProcess | undefined;
    let childLog = '';

    const startBridge = () => {
      const env = {
        ...process.env,
        DATABASE_URL: database.url,
        KAFKA_BROKERS: config.brokers.join(','),
        KAFKA_GROUP_ID: config.groupId,
        KAFKA_COMMANDS_TOPIC: config.topics.commands,
        KAFKA_RESULTS_TOPIC: config.topics.results,
        KAFKA_DLQ_TOPIC: config.topics.deadLetter,
        KAFKA_EVENTS_TOPIC: config.topics.events,
        KAFKA_TOPIC_PARTITIONS: '3',
        LOG_LEVEL: 'warn',
        MEMOTRACE_API_KEYS: '',
        MEMOTRACE_API_KEYS_FILE: '',
      };
      // One node process (no npx/tsx wrapper), so SIGKILL really kills the relay.
      const started = spawn(process.execPath, ['--import', 'tsx', resolve(__dirname, 'main.ts')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      started.stdout!.on('data', (d: Buffer) => (childLog += d.toString()));
      started.stderr!.on('data', (d: Buffer) => (childLog += d.toString()));
      child = started;
      return started;
    };
    const kill = async (target: ChildProcess) => {
      if (target.exitCode !== null || target.signalCode !== null) return;
      const exited = new Promise((r) => target.once('exit', r));
      target.kill('SIGKILL');
      await exited;
    };

    beforeAll(async () => {
      database = await createTestDatabase();
      await migrate(database.pool, logStoreMigrations);
      store = new PostgresLogStore(database.pool);
      config = testKafkaConfig();
    });
    afterAll(async () => {
      if (child) await kill(child);
      await reader?.stop();
      await store?.close();
      await database?.drop();
    });

    it('resumes from its checkpoint without losing an event (repeats are dropped by position)', async () => {
      const handler = new CommandHandler(store, { now: () => new Date().toISOString() }, new InMemorySubjectKeyStore());
      const memories = ['crash-a', 'crash-b', 'crash-c'];
      let written = 0;
      const write = async (batches: number) => {
        for (let b = 0; b < batches; b++) {
          await Promise.all(
            memories.map((memory) =>
              handler.handle(
                memory,
                Array.from({ length: 20 }, (_, i) => ({ ...entity(memory, written + i) })),
              ),
            ),
          );
          written += 20;
        }
      };
      await write(10); // a backlog before the relay first starts

      const first = startBridge();
      // The bridge creates the topics; read once they exist.
      const deadline = Date.now() + 60_000;
      for (;;) {
        try {
          reader = await TopicReader.start(testKafka(config), [config.topics.events]);
          break;
        } catch (error) {
          if (Date.now() > deadline || first.exitCode !== null)
            throw new Error(`the bridge did not create its topics: ${String(error)}\n${childLog}`);
          await new Promise((r) => setTimeout(r, 500));
        }
      }
      const writing = write(40); // and events arriving while it runs
      await reader.waitFor((seen) => seen.length >= 900, 'the relay to get going', 60_000);
      await kill(first); // mid-stream: no shutdown, the last batch may have been sent but not checkpointed
      await writing;
      await write(10);

      startBridge();
      const log = await allLogEvents(store, memories.length * written);
      expect(log).toHaveLength(memories.length * written);
      const head = log.at(-1)!.position;
      await reader.waitFor((seen) => seen.some((m) => m.value.position === head), `the last event (position ${head})`, 60_000);
      await new Promise((r) => setTimeout(r, 500));

      // Nothing is lost...
      expect(new Set(reader.messages.map((m) => m.value.position))).toEqual(new Set(log.map((e) => e.position)));
      // ...and a consumer that drops repeats by position sees each event once, in log order per memory.
      const filter = new PositionFilter();
      const accepted = reader.messages.filter((m) => filter.accept(m.value));
      expect(accepted).toHaveLength(log.length);
      for (const [memory, positions] of positionsByMemory(accepted)) {
        expect(positions).toEqual(log.filter((e) => e.streamId === `memory-${memory}`).map((e) => e.position));
      }
      // The checkpoint reaches the head once the broker acknowledged the last batch.
      const checkpoint = async () =>
        Number((await database.pool.query('SELECT position FROM kafka_relay_checkpoints WHERE relay = $1', [config.topics.events])).rows[0].position);
      const until = Date.now() + 10_000;
      while ((await checkpoint()) < head && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      expect(await checkpoint()).toBe(head);
    }, 180_000);
  });
});
