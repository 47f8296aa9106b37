import pg from 'pg';
import { Observable } from 'rxjs';
import type { StoredEvent, SubscribeOptions } from '../port';
import { NOTIFY_CHANNEL } from './append';

export interface SubscriptionDeps {
  /** Reads the next page after `fromPosition` plus the safe head of the same snapshot. */
  readPage(fromPosition: number, maxCount: number, streamPrefix: string | undefined): Promise<{ head: number; events: StoredEvent[] }>;
  /** Config for the dedicated LISTEN connection (kept out of the query pool). */
  listenerConfig: pg.ClientConfig;
  batchSize: number;
  pollIntervalMs: number;
  /** Called with a promise that settles once the subscription released everything. */
  onCleanup(done: Promise<void>): void;
}

/**
 * Catch-up then live. One reader loop at a time advances a cursor, so each event is delivered
 * once and in position order. NOTIFY only shortens latency: a woken reader may still find the
 * new event hidden by the xmin filter, which the poll then picks up.
 */
export function subscribeToAll(deps: SubscriptionDeps, options: SubscribeOptions): Observable<StoredEvent> {
  return new Observable<StoredEvent>((subscriber) => {
    let cursor = options.fromPosition;
    let closed = false;
    let reading: Promise<void> | undefined;
    let readAgain = false;
    let timer: NodeJS.Timeout | undefined;
    const listener = new pg.Client(deps.listenerConfig);

    const fail = (error: unknown) => {
      if (!closed) subscriber.error(error);
    };

    const drain = async () => {
      for (;;) {
        const page = await deps.readPage(cursor, deps.batchSize, options.streamPrefix);
        for (const event of page.events) {
          if (closed) return;
          cursor = event.position;
          subscriber.next(event);
        }
        if (page.events.length < deps.batchSize) {
          // Nothing matching up to the head: skip the gap (matters with a stream prefix).
          cursor = Math.max(cursor, page.head);
          return;
        }
      }
    };

    const wake = () => {
      if (closed) return;
      if (reading) {
        readAgain = true;
        return;
      }
      reading = (async () => {
        try {
          do {
            readAgain = false;
            await drain();
          } while (readAgain && !closed);
        } catch (error) {
          fail(error);
        } finally {
          reading = undefined;
        }
      })();
    };

    const started = (async () => {
      listener.on('error', fail);
      listener.on('end', () => fail(new Error('event store listener connection ended')));
      listener.on('notification', wake);
      await listener.connect();
      if (closed) return;
      await listener.query(`LISTEN ${NOTIFY_CHANNEL}`);
      if (closed) return;
      timer = setInterval(wake, deps.pollIntervalMs);
      wake();
    })();
    started.catch(fail);

    return () => {
      closed = true;
      clearInterval(timer);
      deps.onCleanup(
        (async () => {
          await started.catch(() => undefined);
          await reading;
          await listener.query(`UNLISTEN ${NOTIFY_CHANNEL}`).catch(() => undefined);
          await listener.end().catch(() => undefined);
        })(),
      );
    };
  });
}
