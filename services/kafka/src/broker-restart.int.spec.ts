import { PostgresLogStore } from '@memotrace/log-store';
import { type TestService, startTestService } from '@memotrace/memotrace/testing';
import { MEMORY_STREAM_PREFIX } from '@memotrace/memory-log';
import { createPool } from '@memotrace/postgres';
import type { KafkaConfig } from '@memotrace/runtime';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import pino from 'pino';
import { keyPartitioner } from './kafka-client';
import { type OwnBroker, TopicReader, describeWithKafka, startOwnBroker, testKafkaConfig } from './testing/kafka-test-kit';

/**
 * The broker crashes (SIGKILL) and restarts while a producer streams command messages (docs/operations.md).
 * The producer resends a message the broker did not acknowledge, as any producer does; the consumer resumes
 * at its committed offsets, and a redelivered command is answered `duplicate`: every acknowledged command is
 * in the export exactly once. HTTP writes go on meanwhile, never answered 500.
 */
jest.setTimeout(240_000);

const MEMORIES = ['kf-a', 'kf-b', 'kf-c'];
const PER_MESSAGE = 5;

describeWithKafka('a Kafka broker restarted during ingest', () => {
  let broker: OwnBroker;
  let config: KafkaConfig;
  let svc: TestService;
  let producer: Producer;
  const lines: string[] = [];

  beforeAll(async () => {
    broker = await startOwnBroker();
    config = testKafkaConfig({ brokers: [broker.brokers] });
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    svc = await startTestService({ kafka: config }, { logger });
    // Short retries: a send the broker cannot take fails soon, and the stream below sends it again.
    const kafka = new Kafka({
      clientId: 'fault-producer',
      brokers: [broker.brokers],
      logLevel: logLevel.NOTHING,
      retry: { retries: 2, maxRetryTime: 1_000 },
    });
    producer = kafka.producer({ createPartitioner: keyPartitioner, allowAutoTopicCreation: false });
    await producer.connect();
  });
  afterAll(async () => {
    await producer?.disconnect().catch(() => undefined);
    await svc?.stop();
    await broker?.stop();
  });

  it('loses and doubles no command, serves again within 30 s, and HTTP writes go on', async () => {
    const acknowledged = new Map<string, string[]>(MEMORIES.map((m) => [m, []]));
    const httpStatuses = new Map<number, number>();
    let streaming = true;
    let sent = 0;
    let unacknowledged = 0;

    const message = (n: number) => {
      const memoryId = MEMORIES[n % MEMORIES.length]!;
      const commands = Array.from({ length: PER_MESSAGE }, (_, i) => ({
        op: 'UPSERT_ENTITY',
        commandId: `k-${n}-${i}`,
        entityId: `e-${n}-${i}`,
        name: `Entity ${n}.${i}`,
      }));
      return { memoryId, commands };
    };
    const sendUntilAcknowledged = async (n: number) => {
      const { memoryId, commands } = message(n);
      for (;;) {
        try {
          await producer.send({ topic: config.topics.commands, acks: -1, messages: [{ key: memoryId, value: JSON.stringify({ commands }) }] });
          acknowledged.get(memoryId)!.push(...commands.map((c) => c.commandId));
          return;
        } catch {
          unacknowledged++;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    };
    const kafkaStream = (async () => {
      while (streaming) {
        await sendUntilAcknowledged(sent++);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const httpStream = (async () => {
      for (let n = 0; streaming; n++) {
        const { status } = await svc.commands('kf-http', [{ op: 'UPSERT_ENTITY', commandId: `h-${n}`, entityId: `h-${n}`, name: `H ${n}` }]);
        httpStatuses.set(status, (httpStatuses.get(status) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();

    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const beforeCrash = sent;
    const linesAtCrash = lines.length;
    await broker.kill();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await broker.restart();
    const restartedAt = Date.now();
    // The first message sent after the restart is applied within 30 s of it.
    const probe = sent + 1;
    await waitUntil(async () => sent > probe + 1, 60_000, 'a message acknowledged after the restart');
    const { memoryId: probeMemory, commands: probeCommands } = message(probe);
    await waitUntil(async () => (await exportedIds(svc, probeMemory)).includes(probeCommands[0]!.commandId), 60_000, 'the probe applied');
    const servingAgainMs = Date.now() - restartedAt;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    streaming = false;
    await Promise.all([kafkaStream, httpStream]);

    expect(beforeCrash).toBeGreaterThan(10);
    expect(sent).toBeGreaterThan(beforeCrash);
    expect(servingAgainMs).toBeLessThan(30_000);
    for (const memoryId of MEMORIES) {
      const want = acknowledged.get(memoryId)!;
      await waitUntil(async () => (await exportedIds(svc, memoryId)).length >= want.length, 60_000, `${memoryId}'s acknowledged commands`);
      const ids = await exportedIds(svc, memoryId);
      expect(new Set(ids).size).toBe(ids.length);
      expect([...ids].sort()).toEqual([...want].sort());
    }
    // HTTP never depends on the broker.
    expect([...httpStatuses.keys()]).toEqual([200]);
    // Events out: the relay publishes the whole log again (a repeat is dropped by position downstream).
    const pool = createPool(svc.service.databaseUrl);
    const store = new PostgresLogStore(pool);
    const events: number[] = [];
    try {
      for (;;) {
        const page = await store.readAll({ fromPosition: events.at(-1) ?? 0, maxCount: 1000, streamPrefix: MEMORY_STREAM_PREFIX });
        if (page.length === 0) break;
        events.push(...page.map((e) => e.position));
      }
    } finally {
      await pool.end();
    }
    const head = events.at(-1)!;
    await waitUntil(async () => svc.service.kafka!.relay.position === head, 60_000, 'the relay at the head of the log');
    const reader = await TopicReader.start(new Kafka({ clientId: 'fault-reader', brokers: [broker.brokers], logLevel: logLevel.NOTHING }), [
      config.topics.events,
    ]);
    try {
      const positions = new Set<number>();
      // Every partition read to its end (a miss shows below as the positions the topic lacks).
      await reader
        .waitFor(
          (seen) => {
            for (const m of seen) positions.add(m.value.position as number);
            return positions.size >= events.length;
          },
          `the ${events.length} events`,
          60_000,
        )
        .catch(() => undefined);
      expect([...positions].sort((a, b) => a - b)).toEqual(events);
    } finally {
      await reader.stop();
    }
    // The outage is said once per change of state, not on every retry of every client: away, back (a
    // send acknowledged as the broker died may say back once between two reports of it away).
    const said = lines.map((line) => JSON.parse(line) as { msg: string; level: number });
    expect(said.filter((l) => l.msg === 'request failed')).toEqual([]);
    const changes = said
      .slice(linesAtCrash)
      .map((l) => l.msg)
      .filter((m) => /^kafka: the broker is (unavailable|available again)/.test(m))
      .map((m) => (/unavailable/.test(m) ? 'away' : 'back'));
    expect(['away,back', 'away,back,away,back']).toContain(changes.join(','));
    expect(said.slice(linesAtCrash).filter((l) => l.level >= 50)).toEqual([]);
    process.stderr.write(
      `broker restart: ${sent} messages, ${unacknowledged} sends refused while it was away, serving again ${servingAgainMs} ms after it was back\n`,
    );
  });
});

async function exportedIds(svc: TestService, memoryId: string): Promise<string[]> {
  const { text } = await svc.get(`/v1/memories/${memoryId}/export`);
  return text
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { op: string; commandId: string })
    .filter((c) => c.op === 'UPSERT_ENTITY')
    .map((c) => c.commandId);
}

async function waitUntil(done: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  for (const deadline = Date.now() + ms; !(await done());) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
