import type { CommandHandler } from '@memotrace/command-service';
import type { ErrorCode, ErrorDetail } from '@memotrace/contracts';
import { DomainError } from '@memotrace/domain';
import { type AccessControl, HttpError, type ServiceMetrics } from '@memotrace/http-kit';
import type { KafkaConfig } from '@memotrace/runtime';
import type { Consumer, EachBatchPayload, Kafka, Message, Producer } from 'kafkajs';
import { type CommandMessage, readCommandMessage } from './command-message';
import { appliedResults, deadLetter, errorResults, refusalResults, sourceOf } from './messages';

export interface CommandConsumerDeps {
  kafka: Kafka;
  /** Sends results and dead letters (acks from all in-sync replicas). */
  producer: Producer;
  handler: CommandHandler;
  /** Deletions committed by any process, taken in before each message (see KafkaBridgeDeps). */
  deletions?: { check(): Promise<void> } | undefined;
  access: AccessControl;
  config: KafkaConfig;
  metrics?: ServiceMetrics;
  onError: (error: unknown, context: string) => void;
  /** Each time the consumer joins its group (at start, and again after the broker was away). */
  onJoined?: () => void;
}

/** Results are sent in one request per this many messages (and at the end of every fetched batch). */
const FLUSH_EVERY = 100;

/**
 * The consumer group on the commands topic. Each message is one atomic batch for one
 * memory, applied through the same CommandHandler as HTTP (same idempotency by
 * commandId). Offsets are resolved only after the results (and dead letters) of the
 * messages before them were acknowledged by the broker: at-least-once delivery, and
 * a redelivered command is answered `duplicate` instead of being applied twice.
 * Bad input never stops the consumer; an infrastructure error (database down) is
 * retried by redelivering from the last committed offset.
 */
export class KafkaCommandConsumer {
  private consumer: Consumer | undefined;

  constructor(private readonly deps: CommandConsumerDeps) {}

  async start(): Promise<void> {
    const { kafka, config } = this.deps;
    const consumer = kafka.consumer({
      groupId: config.groupId,
      sessionTimeout: 10_000,
      heartbeatInterval: 3_000,
      // A shorter long-poll: stop() waits for the fetch in flight.
      maxWaitTimeInMs: 1_000,
      retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 300, maxRetryTime: 10_000 },
    });
    this.consumer = consumer;
    if (this.deps.onJoined) consumer.on(consumer.events.GROUP_JOIN, this.deps.onJoined);
    await consumer.connect();
    await consumer.subscribe({ topic: config.topics.commands, fromBeginning: true });
    // Not awaited: joining the group can wait out a crashed member's session; the service need not.
    consumer
      .run({
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: Math.max(1, Math.min(config.partitions, 8)),
        eachBatch: (payload) => this.consumeBatch(payload),
      })
      .catch((error: unknown) => this.deps.onError(error, 'kafka command consumer'));
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
    this.consumer = undefined;
  }

  private async consumeBatch({ batch, resolveOffset, heartbeat, isRunning, isStale, commitOffsetsIfNecessary }: EachBatchPayload): Promise<void> {
    let pending: { topic: string; messages: Message[] }[] = [];
    let lastDone: string | undefined;
    const flush = async () => {
      if (lastDone === undefined) return;
      const topicMessages = pending.filter((t) => t.messages.length > 0);
      if (topicMessages.length > 0) await this.deps.producer.sendBatch({ acks: -1, topicMessages });
      resolveOffset(lastDone);
      pending = [];
      lastDone = undefined;
      await commitOffsetsIfNecessary();
      await heartbeat();
    };
    let sinceFlush = 0;
    try {
      for (const kafkaMessage of batch.messages) {
        if (!isRunning() || isStale()) break;
        const message: CommandMessage = { ...kafkaMessage, topic: batch.topic, partition: batch.partition };
        pending.push(...(await this.process(message)));
        lastDone = kafkaMessage.offset;
        if (++sinceFlush >= FLUSH_EVERY) {
          await flush();
          sinceFlush = 0;
        }
      }
    } finally {
      // Whatever was decided is answered before an error propagates (kafkajs then redelivers the rest).
      await flush();
    }
  }

  /** The messages to send for one command message: results, and a dead letter when it was malformed. */
  private async process(message: CommandMessage): Promise<{ topic: string; messages: Message[] }[]> {
    const { topics } = this.deps.config;
    const source = sourceOf(message);
    const read = readCommandMessage(message, this.deps.access);
    if (!read.ok) {
      this.deps.metrics?.errors.inc({ code: read.code });
      const out = [{ topic: topics.results, messages: refusalResults(read, source) }];
      if (read.deadLetter) out.push({ topic: topics.deadLetter, messages: [deadLetter(message, read)] });
      return out;
    }
    try {
      await this.deps.deletions?.check();
      const outcome = await this.deps.handler.handle(read.memoryId, read.commands);
      for (const result of outcome.results) this.deps.metrics?.commands.inc({ status: result.status });
      return [{ topic: topics.results, messages: appliedResults(read.memoryId, outcome.position, outcome.results, source) }];
    } catch (error) {
      const refused = asContractError(error);
      if (!refused) throw error; // not the command's fault: retry by redelivery
      this.deps.metrics?.errors.inc({ code: refused.code });
      const ids = read.commands.map((c) => c.commandId);
      return [{ topic: topics.results, messages: errorResults(ids, read.memoryId, refused, source) }];
    }
  }
}

/** The error body HTTP would answer for this error, or undefined for an infrastructure error. */
function asContractError(error: unknown): { code: ErrorCode; message: string; details?: ErrorDetail[] } | undefined {
  if (error instanceof HttpError)
    return { code: error.code, message: error.message, ...(Array.isArray(error.details) ? { details: error.details } : {}) };
  if (error instanceof DomainError) {
    // Located as on HTTP: `commands.3.validTo`.
    const { commandIndex, field } = error.details as { commandIndex?: number; field?: string };
    const path = [commandIndex !== undefined ? `commands.${commandIndex}` : undefined, field].filter((p) => p !== undefined).join('.');
    return { code: error.code, message: error.message, details: [{ path, message: error.message }] };
  }
  return undefined;
}
