import type { CommandHandler } from '@memotrace/command-service';
import type { LogStore } from '@memotrace/log-store';
import type { AccessControl, ServiceMetrics } from '@memotrace/http-kit';
import { type KafkaConfig, backgroundErrors } from '@memotrace/runtime';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import { BrokerOutage, errorText } from './broker-outage';
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
  const outage = new BrokerOutage(logger.child({ component: 'kafka' }));
  const kafka = createKafka(config, logger, outage);
  // A broker away is said once per outage; a database away once per outage and loop; anything else as it comes.
  const reports = new Map<string, (error: Error) => void>();
  const onError = (error: unknown, context: string) => {
    if (outage.away(`${context}: ${errorText(error)}`)) return;
    if (!reports.has(context)) reports.set(context, backgroundErrors(logger, `${context} failed`, 'error'));
    reports.get(context)!(error as Error);
  };
  const { commands, results, deadLetter, events } = config.topics;
  await ensureTopics(kafka, [commands, results, deadLetter, events], config.partitions);

  const producer = kafka.producer({ createPartitioner: keyPartitioner, allowAutoTopicCreation: false });
  await producer.connect();
  const relay = new KafkaLogRelay({ kafka, store: deps.store, pool: deps.pool, topic: events, onError, onSent: () => outage.back() });
  const consumer = new KafkaCommandConsumer({
    kafka,
    producer,
    handler: deps.handler,
    deletions: deps.deletions,
    access: deps.access,
    config,
    onError,
    onJoined: () => outage.back(),
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
