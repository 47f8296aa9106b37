import pg from 'pg';
import { Observable } from 'rxjs';
import type { StoredRecord, SubscribeOptions } from '../port';
import { NOTIFY_CHANNEL } from './append';

export interface Page {
  /** Safe head of the page's snapshot: nothing at or below it can still appear. */
  head: number;
  /** Last committed position in the same snapshot; above `head` while a running transaction holds records back. */
  visibleHead: number;
  records: StoredRecord[];
}

/**
 * While records are held back, re-read after 5, 10, 20, 40, 50, 50 ... ms; a transaction that
 * holds them back for more than ~2 s is no short write, so then back off to the poll interval.
 */
const HELD_BACK_FIRST_DELAY_MS = 5;
const HELD_BACK_MAX_DELAY_MS = 50;
const HELD_BACK_FAST_READS = 40;

export interface SubscriptionDeps {
  /** Reads the next page after `fromPosition` plus the heads of the same snapshot. */
  readPage(fromPosition: number, maxCount: number, streamPrefix: string | undefined): Promise<Page>;
  /** Config for the dedicated LISTEN connection (kept out of the query pool). */
  listenerConfig: pg.ClientConfig;
  batchSize: number;
  pollIntervalMs: number;
  /** Called with a promise that settles once the subscription released everything. */
  onCleanup(done: Promise<void>): void;
}

/**
 * Catch-up then live. One reader loop at a time advances a cursor, so each record is delivered
 * once and in position order. NOTIFY only shortens latency: a woken reader may still find the
 * new record hidden by the xmin filter, because an older transaction is still running. When that
 * transaction is an append, its own NOTIFY wakes the reader again; when it is anything else (a
 * projector's write, a transaction in another database of the same server), nothing would until
 * the fallback poll, so the reader re-reads shortly while it sees committed records held back.
 */
export function subscribeToAll(deps: SubscriptionDeps, options: SubscribeOptions): Observable<StoredRecord> {
  return new Observable<StoredRecord>((subscriber) => {
    let cursor = options.fromPosition;
    let closed = false;
    let reading: Promise<void> | undefined;
    let readAgain = false;
    let timer: NodeJS.Timeout | undefined;
    let heldBackTimer: NodeJS.Timeout | undefined;
    let heldBackDelay = HELD_BACK_FIRST_DELAY_MS;
    let heldBackReads = 0;
    const listener = new pg.Client(deps.listenerConfig);

    const fail = (error: unknown) => {
      if (!closed) subscriber.error(error);
    };

    /** Reads until a short page; returns whether committed records were still held back at the end. */
    const drain = async (): Promise<boolean> => {
      for (;;) {
        const page = await deps.readPage(cursor, deps.batchSize, options.streamPrefix);
        for (const record of page.records) {
          if (closed) return false;
          cursor = record.position;
          subscriber.next(record);
        }
        if (page.records.length < deps.batchSize) {
          // Nothing matching up to the head: skip the gap (matters with a stream prefix).
          cursor = Math.max(cursor, page.head);
          return page.visibleHead > page.head;
        }
      }
    };

    const scheduleHeldBackRead = (heldBack: boolean) => {
      if (!heldBack) {
        heldBackDelay = HELD_BACK_FIRST_DELAY_MS;
        heldBackReads = 0;
        return;
      }
      if (heldBackTimer || closed) return;
      heldBackTimer = setTimeout(
        () => {
          heldBackTimer = undefined;
          wake();
        },
        Math.min(heldBackDelay, deps.pollIntervalMs),
      );
      heldBackReads++;
      heldBackDelay = Math.min(heldBackDelay * 2, heldBackReads < HELD_BACK_FAST_READS ? HELD_BACK_MAX_DELAY_MS : deps.pollIntervalMs);
    };

    const wake = () => {
      if (closed) return;
      if (reading) {
        readAgain = true;
        return;
      }
      reading = (async () => {
        try {
          let heldBack: boolean;
          do {
            readAgain = false;
            heldBack = await drain();
          } while (readAgain && !closed);
          scheduleHeldBackRead(heldBack);
        } catch (error) {
          fail(error);
        } finally {
          reading = undefined;
        }
      })();
    };

    const started = (async () => {
      listener.on('error', fail);
      listener.on('end', () => fail(new Error('record store listener connection ended')));
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
      clearTimeout(heldBackTimer);
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
