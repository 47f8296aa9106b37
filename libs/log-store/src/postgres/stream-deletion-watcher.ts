import pg from 'pg';
import { STREAM_DELETED_CHANNEL, type StreamDeletion, lastStreamDeletion, streamDeletionsAfter } from './delete-stream';

export interface StreamDeletionWatcherOptions {
  /** Fallback poll of `mt_stream_deletions`, for a notification lost with its connection (default 1000 ms). */
  pollIntervalMs?: number;
  /** A failed read or a lost listener connection; the watcher keeps polling. Default: console.error. */
  onError?: (error: Error) => void;
}

/**
 * Tells a process about the stream deletions committed by any process (the PostgreSQL log's
 * `mt_stream_deletions`), so it drops what it holds of those streams: cached states, logs and
 * search corpora would otherwise serve a deleted memory, or fold a new memory of the same id onto
 * the old one. A NOTIFY wakes it at the deletion's commit; a cheap poll catches a notification
 * lost with the listener's connection. Each deletion is reported once, in commit order, from the
 * deletions after `start` on (a process that starts later holds nothing of the earlier ones).
 */
export class StreamDeletionWatcher {
  private seq = 0;
  private listener: pg.Client | undefined;
  private listening = false;
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private readAgain = false;
  private stopped = false;
  private readonly pollIntervalMs: number;
  private readonly onError: (error: Error) => void;

  constructor(
    private readonly pool: pg.Pool,
    private readonly onDeleted: (deletion: StreamDeletion) => void,
    options: StreamDeletionWatcherOptions = {},
  ) {
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.onError = options.onError ?? ((error) => console.error('stream deletion watcher:', error));
  }

  async start(): Promise<void> {
    this.seq = await lastStreamDeletion(this.pool);
    await this.listen();
    this.timer = setInterval(() => {
      if (this.listener === undefined && !this.listening) void this.listen(); // its connection was lost
      void this.check();
    }, this.pollIntervalMs);
    this.timer.unref();
  }

  /**
   * Reads the deletions committed since the last read and reports them (resolves once reported): one
   * indexed read, so a caller can afford it before each request that must not act on a deleted stream.
   * A read already running is followed by another, so every deletion committed before the call is reported.
   */
  check(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.reading) {
      this.readAgain = true;
      return this.reading;
    }
    this.reading = (async () => {
      try {
        do {
          this.readAgain = false;
          for (const deletion of await streamDeletionsAfter(this.pool, this.seq)) {
            this.seq = deletion.seq;
            this.onDeleted(deletion);
          }
        } while (this.readAgain && !this.stopped);
      } catch (error) {
        this.report(error);
      } finally {
        this.reading = undefined;
      }
    })();
    return this.reading;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.reading;
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    this.listening = true;
    const listener = new pg.Client(this.pool.options);
    listener.on('notification', () => void this.check());
    // A lost connection only costs latency: the poll goes on.
    listener.on('error', (error) => {
      this.report(error);
      if (this.listener === listener) this.listener = undefined;
    });
    try {
      await listener.connect();
      await listener.query(`LISTEN ${STREAM_DELETED_CHANNEL}`);
      if (this.stopped) await listener.end();
      else this.listener = listener;
    } catch (error) {
      this.report(error);
      await listener.end().catch(() => undefined);
    } finally {
      this.listening = false;
    }
  }

  private report(error: unknown): void {
    if (!this.stopped) this.onError(error instanceof Error ? error : new Error(String(error), { cause: error }));
  }
}
