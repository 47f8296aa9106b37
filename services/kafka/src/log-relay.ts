import type { LogStore } from '@memotrace/log-store';
import { MEMORY_STREAM_PREFIX } from '@memotrace/memory-log';
import type { Pool } from 'pg';
import type { Subscription } from 'rxjs';
import type { Kafka, Message, Producer } from 'kafkajs';
import { keyPartitioner } from './kafka-client';
import { eventMessage } from './messages';
import { RelayCheckpointStore } from './relay-checkpoint';

export interface LogRelayOptions {
  kafka: Kafka;
  store: LogStore;
  pool: Pool;
  topic: string;
  /** The checkpoint row; defaults to the topic, so one relay per topic. */
  name?: string;
  batchSize?: number;
  /** Polls at least this often even without a wake-up. */
  pollMs?: number;
  retryMs?: number;
  onError: (error: unknown, context: string) => void;
  /** After each batch the broker acknowledged. */
  onSent?: () => void;
}

/**
 * Publishes the committed events of every memory stream to the events topic
 * (key = memoryId, so a memory's events share a partition, in position order), each
 * with its global position. Reads from the checkpoint in position order, sends a
 * batch, waits for the broker's acks from all in-sync replicas, and only then
 * advances the checkpoint in PostgreSQL. After a crash it resumes from the
 * checkpoint: nothing is lost; the events of the last unacknowledged batch may be
 * published twice, and consumers drop them by position (see PositionFilter).
 */
export class KafkaLogRelay {
  private readonly checkpoints: RelayCheckpointStore;
  private producer: Producer | undefined;
  private wakeups: Subscription | undefined;
  private wake: (() => void) | undefined;
  private stopped = false;
  private loop: Promise<void> | undefined;
  private published = 0;

  constructor(private readonly options: LogRelayOptions) {
    this.checkpoints = new RelayCheckpointStore(options.pool, options.name ?? options.topic);
  }

  /** The last acknowledged position (the checkpoint). */
  get position(): number {
    return this.published;
  }

  async start(): Promise<void> {
    this.published = await this.checkpoints.load();
    // One request in flight: a retried send can never overtake the one before it, so each memory stays in position order.
    this.producer = this.options.kafka.producer({ createPartitioner: keyPartitioner, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    await this.producer.connect();
    // The live subscription only wakes the loop; the events themselves are read in batches.
    const head = await this.options.store.headPosition();
    this.wakeups = this.options.store
      .subscribe({ fromPosition: head, streamPrefix: MEMORY_STREAM_PREFIX })
      .subscribe({ next: () => this.wake?.(), error: (error: unknown) => this.options.onError(error, 'event relay wake-ups') });
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeups?.unsubscribe();
    this.wake?.();
    await this.loop;
    await this.producer?.disconnect();
    this.producer = undefined;
  }

  private async run(): Promise<void> {
    const { store, topic, batchSize = 500, pollMs = 1000, retryMs = 1000 } = this.options;
    while (!this.stopped) {
      try {
        const events = await store.readAll({ fromPosition: this.published, maxCount: batchSize, streamPrefix: MEMORY_STREAM_PREFIX });
        if (events.length === 0) {
          await this.sleep(pollMs);
          continue;
        }
        const messages = events.map(eventMessage).filter((m): m is Message => m !== null);
        await this.producer!.send({ topic, acks: -1, messages });
        this.options.onSent?.();
        const last = events[events.length - 1]!.position;
        await this.checkpoints.advance(last);
        this.published = last;
      } catch (error) {
        this.options.onError(error, 'event relay');
        await this.sleep(retryMs);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}
