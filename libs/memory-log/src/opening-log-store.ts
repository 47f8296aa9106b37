import type {
  AppendOptions,
  AppendResult,
  DeletedStream,
  LogStore,
  NewRecord,
  PositionedRecordContent,
  ReadAllOptions,
  ReadOptions,
  RecordContent,
  StoredRecord,
  StreamHead,
  SubscribeOptions,
} from '@memotrace/log-store';
import type { SubjectKeyStore } from '@memotrace/subject-keys';
import { Observable } from 'rxjs';
import { memoryIdOfStream } from './records';
import { openRecords } from './sealing';

/**
 * The log as its readers see it: every record read (streams, the whole log, tags, the
 * subscription) comes with its sealed content opened, or emptied where its keys are destroyed.
 * Appends pass through: the command side seals before appending (`sealBatch`). Whatever must
 * copy the log as stored (the Kafka relay) reads the inner store instead.
 */
export class OpeningLogStore implements LogStore {
  constructor(
    readonly inner: LogStore,
    private readonly keyStore: SubjectKeyStore,
  ) {}

  append(streamId: string, records: NewRecord[], options: AppendOptions): Promise<AppendResult> {
    return this.inner.append(streamId, records, options);
  }

  async readStream(streamId: string, options?: ReadOptions): Promise<StoredRecord[]> {
    return this.open(await this.inner.readStream(streamId, options));
  }

  async readStreamContent(streamId: string, fromRevision?: number, maxCount?: number): Promise<RecordContent[]> {
    const memoryId = memoryIdOfStream(streamId);
    return openRecords(this.keyStore, await this.inner.readStreamContent(streamId, fromRevision, maxCount), () => memoryId);
  }

  async readAll(options: ReadAllOptions): Promise<StoredRecord[]> {
    return this.open(await this.inner.readAll(options));
  }

  async readAllContent(options: ReadAllOptions): Promise<PositionedRecordContent[]> {
    return this.open(await this.inner.readAllContent(options));
  }

  async readByTag(tag: string): Promise<StoredRecord[]> {
    return this.open(await this.inner.readByTag(tag));
  }

  headPosition(): Promise<number> {
    return this.inner.headPosition();
  }

  streamHeads(streamPrefix: string): Promise<StreamHead[]> {
    return this.inner.streamHeads(streamPrefix);
  }

  streamPosition(streamId: string): Promise<number> {
    return this.inner.streamPosition(streamId);
  }

  highestPosition(): Promise<number> {
    return this.inner.highestPosition();
  }

  /** In order; records arriving while a batch is being opened are opened together next. */
  subscribe(options: SubscribeOptions): Observable<StoredRecord> {
    return new Observable<StoredRecord>((subscriber) => {
      const queue: StoredRecord[] = [];
      let opening = false;
      let completed = false;
      const drain = async (): Promise<void> => {
        if (opening) return;
        opening = true;
        try {
          while (queue.length > 0 && !subscriber.closed) {
            const batch = queue.splice(0, queue.length);
            for (const record of await this.open(batch)) subscriber.next(record);
          }
          if (completed) subscriber.complete();
        } catch (error) {
          subscriber.error(error);
        } finally {
          opening = false;
        }
      };
      const inner = this.inner.subscribe(options).subscribe({
        next: (record) => {
          queue.push(record);
          void drain();
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          completed = true;
          void drain();
        },
      });
      return () => inner.unsubscribe();
    });
  }

  /** Passes through: the stream's keys are the deleting side's to drop (a memory deletion drops its keys with its log). */
  deleteStream(streamId: string): Promise<DeletedStream> {
    return this.inner.deleteStream(streamId);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private open<T extends RecordContent & { streamId: string }>(records: T[]): Promise<T[]> {
    return openRecords(this.keyStore, records, (record) => memoryIdOfStream(record.streamId));
  }
}
