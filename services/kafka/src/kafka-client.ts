import type { KafkaConfig } from '@memotrace/runtime';
import { Kafka, type LogEntry, logLevel, Partitioners } from 'kafkajs';
import type { Logger } from 'pino';
import { type BrokerOutage, isRejoin } from './broker-outage';

/**
 * A kafkajs client that logs through pino (warnings and errors only: kafkajs is chatty); reports of a
 * broker that cannot be reached go to `outage`, which says them once per outage, and those of a group
 * rejoin (which kafkajs does by itself) are debug.
 */
export function createKafka(config: KafkaConfig, logger: Logger, outage?: BrokerOutage): Kafka {
  const log = logger.child({ component: 'kafka' });
  return new Kafka({
    clientId: config.clientId,
    brokers: config.brokers,
    logLevel: logLevel.WARN,
    retry: { retries: 8, initialRetryTime: 200, maxRetryTime: 5_000 },
    logCreator:
      () =>
      ({ level, log: { message, ...extra } }: LogEntry) => {
        const text = [message, extra['error']].filter(Boolean).join(' ');
        if (outage?.away(text, extra)) return;
        if (isRejoin(text)) log.debug(extra, message);
        else if (level === logLevel.ERROR) log.error(extra, message);
        else if (level === logLevel.WARN) log.warn(extra, message);
      },
  });
}

/** Java's murmur2 partitioner, so kafkajs puts a key on the same partition as Java clients (and kcat with murmur2_random). */
export const keyPartitioner = Partitioners.DefaultPartitioner;

/** Creates the topics that are missing (existing ones are left as they are). */
export async function ensureTopics(kafka: Kafka, topics: readonly string[], partitions: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = [...new Set(topics)].filter((t) => !existing.has(t));
    if (missing.length > 0) {
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((topic) => ({ topic, numPartitions: partitions, replicationFactor: -1 })),
      });
    }
  } finally {
    await admin.disconnect();
  }
}
