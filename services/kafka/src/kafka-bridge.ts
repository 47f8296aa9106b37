import type { CommandHandler } from '@memotrace/command-service';
import type { LogStore } from '@memotrace/log-store';
import type { AccessControl, ServiceMetrics } from '@memotrace/http-kit';
import type { KafkaConfig } from '@memotrace/runtime';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import { KafkaCommandConsumer } from './command-consumer';
import { KafkaLogRelay } from './log-relay';
import { createKafka, ensureTopics, keyPartitioner } from './kafka-client';

export interface KafkaBridgeDeps {
  config: KafkaConfig;
  handler: CommandHandler;
  /** Deletions committed by any process, taken in before each message: a write must not use what was cached of a deleted memory. */
  deletions?: { check(): Promise<void> } | undefined;
  access: AccessControl;
  store: LogStore;
  pool: Pool;
  logger: Logger;
  metrics?: ServiceMetrics;
}

export interface RunningKafkaBridge {
  relay: KafkaLogRelay;
  stop(): Promise<void>;
}

/** Commands in (consumer group), events out (checkpointed relay); creates missing topics first. */
export async function startKafkaBridge(deps: KafkaBridgeDeps): Promise<RunningKafkaBridge> {
  const { config, logger } = deps;
  const kafka = createKafka(config, logger);
  const onError = (error: unknown, context: string) => logger.error({ err: error }, `${context} failed`);
  const { commands, results, deadLetter, events } = config.topics;
  await ensureTopics(kafka, [commands, results, deadLetter, events], config.partitions);

  const producer = kafka.producer({ createPartitioner: keyPartitioner, allowAutoTopicCreation: false });
  await producer.connect();
  const relay = new KafkaLogRelay({ kafka, store: deps.store, pool: deps.pool, topic: events, onError });
  const consumer = new KafkaCommandConsumer({
    kafka,
    producer,
    handler: deps.handler,
    deletions: deps.deletions,
    access: deps.access,
    config,
    onError,
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
  });
  try {
    await relay.start();
    await consumer.start();
  } catch (error) {
    await Promise.allSettled([consumer.stop(), relay.stop(), producer.disconnect()]);
    throw error;
  }
  logger.info({ brokers: config.brokers, topics: config.topics, groupId: config.groupId }, 'kafka: consuming commands, relaying events');
  return {
    relay,
    async stop() {
      await consumer.stop(); // no new results after this
      await relay.stop();
      await producer.disconnect();
    },
  };
}
