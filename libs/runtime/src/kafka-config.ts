import { z } from 'zod';

/** Kafka: on when KAFKA_BROKERS is set. Topic names default to `memotrace.*`. */
export interface KafkaConfig {
  brokers: string[];
  clientId: string;
  /** Consumer group of the command consumer. */
  groupId: string;
  topics: KafkaTopics;
  /** Partitions of the topics MemoTrace creates when they are missing. */
  partitions: number;
}

export interface KafkaTopics {
  /** Commands in: key = memoryId, value = `{memoryId?, commands}` or one command. */
  commands: string;
  /** One result per command, key = commandId. */
  results: string;
  /** Messages that could not be read as commands, with the reason. */
  deadLetter: string;
  /** Committed events, key = memoryId, each carrying its global position. */
  events: string;
}

const topicName = z.string().regex(/^[a-zA-Z0-9._-]{1,249}$/, 'must be a Kafka topic name ([a-zA-Z0-9._-], at most 249)');
const hostPort = z.string().regex(/^[^\s:,]+:\d{1,5}$/, 'must be host:port');

const kafkaEnv = z.object({
  KAFKA_BROKERS: z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((b) => b.trim())
        .filter((b) => b !== ''),
    )
    .pipe(z.array(hostPort).min(1)),
  KAFKA_CLIENT_ID: z.string().min(1).default('memotrace'),
  KAFKA_GROUP_ID: z.string().min(1).default('memotrace-commands'),
  KAFKA_COMMANDS_TOPIC: topicName.default('memotrace.commands'),
  KAFKA_RESULTS_TOPIC: topicName.default('memotrace.command-results'),
  KAFKA_DLQ_TOPIC: topicName.default('memotrace.commands.dlq'),
  KAFKA_EVENTS_TOPIC: topicName.default('memotrace.events'),
  KAFKA_TOPIC_PARTITIONS: z.coerce.number().int().min(1).max(1000).default(6),
});

/** The Kafka settings from the environment, or undefined when KAFKA_BROKERS is unset or blank. Throws one line on a bad value. */
export function readKafkaConfig(env: NodeJS.ProcessEnv): KafkaConfig | undefined {
  if ((env['KAFKA_BROKERS'] ?? '').trim() === '') return undefined;
  const blankAsUnset = Object.fromEntries(Object.entries(env).filter(([k, v]) => k.startsWith('KAFKA_') && v !== undefined && v.trim() !== ''));
  const parsed = kafkaEnv.safeParse(blankAsUnset);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${String(issue.path[0] ?? 'KAFKA_*')}: ${issue.message}`);
  }
  const e = parsed.data;
  return {
    brokers: e.KAFKA_BROKERS,
    clientId: e.KAFKA_CLIENT_ID,
    groupId: e.KAFKA_GROUP_ID,
    topics: { commands: e.KAFKA_COMMANDS_TOPIC, results: e.KAFKA_RESULTS_TOPIC, deadLetter: e.KAFKA_DLQ_TOPIC, events: e.KAFKA_EVENTS_TOPIC },
    partitions: e.KAFKA_TOPIC_PARTITIONS,
  };
}
