import type { KafkaConfig } from '@memotrace/runtime';
import { type Consumer, Kafka, type KafkaMessage, logLevel, type Producer } from 'kafkajs';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { keyPartitioner } from '../kafka-client';

const execFileAsync = promisify(execFile);

/**
 * Kafka specs run against the real broker that infra/scripts/test.sh starts
 * (infra/kafka/broker.sh) and names in KAFKA_BROKERS. Without it they are not
 * selected (a developer running `npx jest` alone has no broker); the reason is printed.
 */
export const KAFKA_BROKERS = process.env['KAFKA_BROKERS']?.trim() ?? '';

export function describeWithKafka(name: string, body: () => void): void {
  if (KAFKA_BROKERS !== '') {
    describe(name, body);
    return;
  }
  process.stderr.write(`kafka specs not selected (${name}): KAFKA_BROKERS is unset; npm test starts a broker (infra/kafka/broker.sh)\n`);
  describe.skip(`${name} [not selected: KAFKA_BROKERS is unset]`, body);
}

/** A config with topics and group of its own, so specs sharing one broker never meet. */
export function testKafkaConfig(overrides: Partial<KafkaConfig> = {}): KafkaConfig {
  const run = `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  return {
    brokers: KAFKA_BROKERS.split(','),
    clientId: `memotrace-test-${run}`,
    groupId: `memotrace-commands-${run}`,
    topics: {
      commands: `test-${run}.commands`,
      results: `test-${run}.command-results`,
      deadLetter: `test-${run}.commands.dlq`,
      events: `test-${run}.events`,
    },
    partitions: 3,
    ...overrides,
  };
}

export function testKafka(config: KafkaConfig): Kafka {
  return new Kafka({ clientId: `${config.clientId}-probe`, brokers: config.brokers, logLevel: logLevel.NOTHING });
}

/** A producer keyed like the bridge's own (Java's murmur2), for sending commands. */
export async function testProducer(kafka: Kafka): Promise<Producer> {
  const producer = kafka.producer({ createPartitioner: keyPartitioner, allowAutoTopicCreation: false });
  await producer.connect();
  return producer;
}

export interface ReadMessage {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: any;
  headers: Record<string, string>;
}

/** Reads topics from the beginning into `messages` (values parsed as JSON when they are). */
export class TopicReader {
  readonly messages: ReadMessage[] = [];
  private consumer: Consumer | undefined;

  static async start(kafka: Kafka, topics: string[]): Promise<TopicReader> {
    const reader = new TopicReader();
    const consumer = kafka.consumer({ groupId: `reader-${randomBytes(6).toString('hex')}`, sessionTimeout: 10_000, heartbeatInterval: 1_000 });
    reader.consumer = consumer;
    try {
      await consumer.connect();
      await consumer.subscribe({ topics, fromBeginning: true });
      await consumer.run({ eachMessage: async ({ topic, partition, message }) => void reader.messages.push(toRead(topic, partition, message)) });
    } catch (error) {
      await consumer.disconnect();
      throw error;
    }
    return reader;
  }

  on(topic: string): ReadMessage[] {
    return this.messages.filter((m) => m.topic === topic);
  }

  /** Waits until `done(messages)` holds; fails with what it saw after `timeoutMs`. */
  async waitFor(done: (messages: ReadMessage[]) => boolean, what: string, timeoutMs = 30_000): Promise<ReadMessage[]> {
    const deadline = Date.now() + timeoutMs;
    while (!done(this.messages)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; saw ${this.messages.length} message(s)`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return this.messages;
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }
}

function toRead(topic: string, partition: number, message: KafkaMessage): ReadMessage {
  const text = message.value?.toString('utf8') ?? null;
  let value: unknown = text;
  try {
    value = text === null ? null : JSON.parse(text);
  } catch {
    value = text;
  }
  const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(Array.isArray(v) ? v[0] : v)]));
  return { topic, partition, offset: message.offset, key: message.key?.toString('utf8') ?? null, value, headers };
}

/** A broker of a test's own (infra/kafka/broker.sh), for a test that kills and restarts it. */
export interface OwnBroker {
  brokers: string;
  /** SIGKILL: a crash; its storage stays. */
  kill(): Promise<void>;
  /** Starts it again on the same storage and port; resolves once it answers. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const BROKER_SH = join(__dirname, '../../../../infra/kafka/broker.sh');

export async function startOwnBroker(): Promise<OwnBroker> {
  const state = await mkdtemp(join(tmpdir(), 'mt-broker-'));
  const run = async (verb: string) =>
    (await execFileAsync('bash', [BROKER_SH, verb, state], { env: { ...process.env, KAFKA_OWNER_PID: String(process.pid) } })).stdout.trim();
  const brokers = await run('start');
  return {
    brokers,
    kill: async () => void (await run('kill')),
    restart: async () => void (await run('restart')),
    stop: async () => void (await run('stop')),
  };
}
