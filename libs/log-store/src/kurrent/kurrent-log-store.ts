import type * as Kurrent from '@kurrent/kurrentdb-client';
import { Observable, type Subscriber } from 'rxjs';
import {
  IdempotencyConflictError,
  WrongExpectedRevisionError,
  byStreamId,
  type AppendOptions,
  type AppendResult,
  type DeletedStream,
  type RecordContent,
  type LogStore,
  type NewRecord,
  type PositionedRecordContent,
  type ReadAllOptions,
  type ReadOptions,
  type StoredRecord,
  type StreamHead,
  type SubscribeOptions,
} from '../port';
import {
  ANY,
  END,
  NO_STREAM,
  isPortRecord,
  isStreamNotFound,
  isWrongExpectedVersion,
  matchesRevision,
  tagStreamName,
  toEventData,
  toLinkEvent,
  toPositionNumber,
  toReadPosition,
  toStoredRecord,
  toStreamState,
  uniqueTags,
  linkTarget,
} from './mapping';

type KurrentModule = typeof Kurrent;

/** Records per $all read of streamHeads. */
const STREAM_HEADS_PAGE = 5_000;

/**
 * The client pulls in gRPC, protobuf and a native bridge, slow to load. Load it on first use, so
 * processes that only use PostgreSQL do not pay for it by importing @memotrace/log-store.
 */
let loaded: KurrentModule | undefined;
function kurrent(): KurrentModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('@kurrent/kurrentdb-client') as KurrentModule;
  return loaded;
}

export interface KurrentLogStoreOptions {
  /** Dispose the client in close(). Default: true with fromConnectionString, false for a client passed in. */
  ownsClient?: boolean;
  /** How many streams' known event ids to keep for the idempotency check (least recently used go first). */
  knownStreams?: number;
  /** Attempts of one append against writers that keep getting in between (expected revision 'any'). */
  maxAppendAttempts?: number;
}

/**
 * What this store knows about a stream: where its current life starts and ends (KurrentDB revisions)
 * and every event id in it. `base` is the KurrentDB revision of its first event: 0, or after a
 * deletion the revision the stream went on from.
 */
interface StreamIndex {
  base: number;
  /** KurrentDB revision of the last event; -1 for an empty stream. */
  last: number;
  lastId: string | undefined;
  events: Map<string, { revision: number; position: number }>;
}

const emptyIndex = (): StreamIndex => ({ base: -1, last: -1, lastId: undefined, events: new Map() });

/** The port's revision (0-based in the stream's current life) of an event at KurrentDB revision `revision`. */
const portRevision = (record: StoredRecord, base: number): StoredRecord => ({ ...record, revision: record.revision - base });

/**
 * LogStore on KurrentDB / EventStoreDB (server 22.6 or later: stream reads must carry $all
 * positions). Positions are $all commit positions; revisions are KurrentDB stream revisions.
 *
 * Idempotency. KurrentDB deduplicates a repeated append only when it arrives at the same
 * expected revision as the original (and best effort with ANY); it would write an id that sits
 * earlier in the stream again, and it does not say whether an append was deduplicated. The port
 * promises more: an id the stream has is never written twice, a full repeat returns the original
 * result with idempotentRetry even at a stale revision, a partial repeat is an
 * IdempotencyConflictError. So append checks the ids against the stream first, then writes at
 * the exact revision it checked (also for 'any'); if another writer got in between, the server
 * answers WrongExpectedVersion and the check runs again on the newer stream. The ids of a stream
 * are read once and kept (streams are append-only, so what is known stays true); each append
 * reads only the events written since.
 *
 * Tags. Each tag is a stream `tag-<tag>` (stream names starting `tag-` are reserved for this
 * index; MemoTrace's own streams are `memory-*`) of link events (`$>`, data `<revision>@<stream>`)
 * rather than copies of the event: a link has no data of its own, so there is one copy of each
 * event, and reading the tag stream with resolveLinkTos returns the original events with their
 * own stream, revision and position, which is exactly what readByTag must return. Links are
 * typed `$>`, so the standard exclude-system-events filter keeps them out of readAll and
 * subscriptions. The link append follows the event append (KurrentDB has no transaction across
 * streams before 25.1's multi-stream append): append() resolves only after both, and a retry of
 * an append that failed in between writes the links again (same link ids, and readByTag drops
 * duplicates), so a successful append always has its tag entries.
 *
 * Deletion. `deleteStream` soft-deletes the stream (and the tag streams that only link into it):
 * reads no longer find its events, and links to them resolve to nothing. KurrentDB numbers a
 * stream that is appended to again after a soft delete on from where it was, and keeps the deleted
 * events in $all until a scavenge; the port's stream starts again from revision 0 and its readers
 * must not see deleted events. So a stream's revisions are counted from its first readable event
 * (its base), and reads of $all drop events below their stream's base (or of a stream without
 * readable events). Reading the base costs one small stream read.
 */
export class KurrentLogStore implements LogStore {
  private readonly known = new Map<string, StreamIndex>();
  private readonly knownStreams: number;
  private readonly maxAppendAttempts: number;
  private readonly live = new Set<Subscriber<StoredRecord>>();
  private readonly unsubscribing = new Set<Promise<void>>();
  private closing: Promise<void> | undefined;

  /** A client for `kurrentdb://...` / `esdb://...`; it connects on first use, not here. */
  static fromConnectionString(connectionString: string, options: KurrentLogStoreOptions = {}): KurrentLogStore {
    return new KurrentLogStore(kurrent().KurrentDBClient.connectionString(connectionString), { ownsClient: true, ...options });
  }

  constructor(
    private readonly client: Kurrent.KurrentDBClient,
    private readonly options: KurrentLogStoreOptions = {},
  ) {
    this.knownStreams = options.knownStreams ?? 1_000;
    this.maxAppendAttempts = options.maxAppendAttempts ?? 20;
  }

  async append(streamId: string, events: NewRecord[], options: AppendOptions): Promise<AppendResult> {
    this.assertOpen();
    if (options.alongside) throw new Error('KurrentLogStore: an append shares no transaction with PostgreSQL, so it cannot write alongside');
    validate(events);
    const expected = options.expectedRevision;
    toStreamState(expected); // validates a numeric revision before anything is read
    const data = events.map(toEventData);
    for (let attempt = 1; ; attempt++) {
      const index = await this.catchUp(streamId);
      const current = index.last < 0 ? -1 : index.last - index.base;
      const existing = events.flatMap((event) => index.events.get(event.recordId.toLowerCase()) ?? []);
      if (existing.length === events.length) {
        await this.linkTags(streamId, events, index);
        return { nextExpectedRevision: current, position: Math.max(...existing.map((e) => e.position)), idempotentRetry: true };
      }
      if (existing.length > 0) throw new IdempotencyConflictError(streamId);
      if (!matchesRevision(expected, current)) throw new WrongExpectedRevisionError(streamId, expected, current);
      try {
        // Exactly the revision just checked, even for 'any': nothing may slip in between the check and the write.
        // An empty stream is "no stream" also after a soft delete (KurrentDB then goes on from its old revision).
        await this.client.appendToStream(streamId, data, { streamState: index.last < 0 ? NO_STREAM : BigInt(index.last) });
      } catch (error) {
        if (isWrongExpectedVersion(error) && attempt < this.maxAppendAttempts) continue;
        throw error;
      }
      // Read what was just written (the index needs it anyway): the exact position of every event.
      // The leader acknowledges an append once it is indexed, so it is readable now.
      const after = await this.catchUp(streamId);
      const last = after.events.get(events[events.length - 1]!.recordId.toLowerCase());
      if (!last) throw new Error(`stream ${streamId}: appended events are not readable yet; retry the append (it is idempotent)`);
      await this.linkTags(streamId, events, after);
      return { nextExpectedRevision: last.revision - after.base, position: last.position, idempotentRetry: false };
    }
  }

  async readStream(streamId: string, options: ReadOptions = {}): Promise<StoredRecord[]> {
    this.assertOpen();
    const maxCount = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    if (maxCount <= 0) return [];
    const fromRevision = Math.max(options.fromRevision ?? 0, 0);
    // From the start, the first event read is the base; from later on, the base is read first.
    const base = fromRevision === 0 ? undefined : await this.baseOf(streamId);
    if (base === null) return [];
    const events = await this.readKurrentStream(streamId, base === undefined ? 'start' : BigInt(base + fromRevision), maxCount);
    const from = base ?? events[0]?.revision ?? 0;
    return events.map((event) => portRevision(event, from));
  }

  /** A stream's events from a KurrentDB revision on, with their KurrentDB revisions ([] for no stream). */
  private async readKurrentStream(streamId: string, fromRevision: bigint | 'start', maxCount = Number.MAX_SAFE_INTEGER): Promise<StoredRecord[]> {
    const events: StoredRecord[] = [];
    try {
      for await (const resolved of this.client.readStream(streamId, { fromRevision, maxCount, direction: 'forwards', resolveLinkTos: false })) {
        if (resolved.event) events.push(toStoredRecord(withPosition(resolved)));
      }
    } catch (error) {
      if (isStreamNotFound(error)) return [];
      throw error;
    }
    return events;
  }

  /** The KurrentDB revision of the stream's first readable event; null when it has none (never written, or deleted). */
  private async baseOf(streamId: string): Promise<number | null> {
    const [first] = await this.readKurrentStream(streamId, 'start', 1);
    return first === undefined ? null : first.revision;
  }

  async readStreamContent(streamId: string, fromRevision = 0, maxCount?: number): Promise<RecordContent[]> {
    return (await this.readStream(streamId, { fromRevision, maxCount })).map(({ type, data, metadata }) => ({ type, data, metadata }));
  }

  async readAllContent(options: ReadAllOptions): Promise<PositionedRecordContent[]> {
    return (await this.readAll(options)).map(({ streamId, position, type, data, metadata }) => ({ streamId, position, type, data, metadata }));
  }

  async readAll(options: ReadAllOptions): Promise<StoredRecord[]> {
    this.assertOpen();
    const { fromPosition, maxCount, streamPrefix } = options;
    if (!Number.isInteger(maxCount) || maxCount <= 0) throw new RangeError(`maxCount must be a positive integer, got ${maxCount}`);
    const events: StoredRecord[] = [];
    const bases = new BaseCache((streamId) => this.baseOf(streamId));
    let from = fromPosition;
    while (events.length < maxCount) {
      // +1: reading $all forwards from a position includes the event at that position.
      const wanted = maxCount - events.length + 1;
      const start = from;
      let read = 0;
      let last = start;
      for await (const resolved of this.client.readAll({
        fromPosition: toReadPosition(from),
        maxCount: wanted,
        direction: 'forwards',
        resolveLinkTos: false,
        filter: this.filter(streamPrefix),
      })) {
        read++;
        const recorded = resolved.event;
        if (!recorded) continue;
        const position = toPositionNumber(recorded.position);
        last = Math.max(last, position);
        if (position <= start || !this.wanted(recorded, streamPrefix)) continue;
        const [event] = await bases.live([toStoredRecord(recorded)]);
        if (event === undefined) continue; // deleted: still in $all until a scavenge
        events.push(event);
        if (events.length === maxCount) break;
      }
      if (read < wanted || last === start) break; // the end of $all
      from = last; // more to read: the client-side check dropped some of this page
    }
    return events;
  }

  async readByTag(tag: string): Promise<StoredRecord[]> {
    this.assertOpen();
    const byPosition = new Map<number, StoredRecord>();
    try {
      for await (const resolved of this.client.readStream(tagStreamName(tag), {
        fromRevision: 'start',
        direction: 'forwards',
        resolveLinkTos: true,
      })) {
        // A link whose target is gone resolves to nothing; an entry that is not a link is not ours.
        if (!resolved.link || !resolved.event || !isPortRecord(resolved.event)) continue;
        const event = toStoredRecord(resolved.event);
        if (event.tags?.includes(tag)) byPosition.set(event.position, event);
      }
    } catch (error) {
      if (isStreamNotFound(error)) return [];
      throw error;
    }
    // Concurrent appends may link in a different order than they committed: log order is position order.
    const bases = new BaseCache((streamId) => this.baseOf(streamId));
    return bases.live([...byPosition.values()].sort((a, b) => a.position - b.position));
  }

  async headPosition(): Promise<number> {
    this.assertOpen();
    for await (const resolved of this.client.readAll({
      fromPosition: END,
      direction: 'backwards',
      maxCount: 100,
      resolveLinkTos: false,
      filter: this.filter(undefined),
    })) {
      if (resolved.event && isPortRecord(resolved.event)) return toPositionNumber(resolved.event.position);
    }
    return 0;
  }

  /**
   * KurrentDB lists streams only through its system projections ($streams, $by-category), which may
   * be off and lag when on: this reads the prefix's records from $all once (server-side filtered),
   * keeping each stream's last. Linear in the records under the prefix, not in the streams.
   */
  async streamHeads(streamPrefix: string): Promise<StreamHead[]> {
    const heads = new Map<string, StreamHead>();
    for (let from = 0; ;) {
      const page = await this.readAll({ fromPosition: from, maxCount: STREAM_HEADS_PAGE, streamPrefix });
      for (const { streamId, revision, position, metadata } of page) heads.set(streamId, { streamId, revision, position, metadata });
      if (page.length < STREAM_HEADS_PAGE) break;
      from = page[page.length - 1]!.position;
    }
    return [...heads.values()].sort(byStreamId);
  }

  async streamPosition(streamId: string): Promise<number> {
    this.assertOpen();
    try {
      for await (const resolved of this.client.readStream(streamId, {
        fromRevision: END,
        direction: 'backwards',
        maxCount: 1,
        resolveLinkTos: false,
      })) {
        if (resolved.event) return toPositionNumber(withPosition(resolved).position!);
      }
    } catch (error) {
      if (!isStreamNotFound(error)) throw error;
    }
    return 0;
  }

  /** The server's log has no in-flight appends to wait for: its head is the highest position. */
  highestPosition(): Promise<number> {
    return this.headPosition();
  }

  /** subscribeToAll: the server catches up from the position, then goes live, in $all order. */
  subscribe(options: SubscribeOptions): Observable<StoredRecord> {
    return new Observable<StoredRecord>((subscriber) => {
      if (this.closing) {
        subscriber.error(new Error('event store is closed'));
        return;
      }
      let done = false;
      let last = options.fromPosition;
      const finish = (error?: unknown) => {
        if (done) return;
        done = true;
        this.live.delete(subscriber);
        subscriber.error(error);
      };
      let subscription: Kurrent.AllStreamSubscription;
      // Bases of the streams seen, dropped when a stream's metadata changes (a soft delete writes it).
      const bases = new BaseCache((streamId) => this.baseOf(streamId));
      const { streamPrefix } = options;
      try {
        subscription = this.client.subscribeToAll({
          fromPosition: toReadPosition(options.fromPosition),
          resolveLinkTos: false,
          filter: streamPrefix ? kurrent().streamNameFilter({ prefixes: [streamPrefix, metadataStreamOf(streamPrefix)] }) : this.filter(undefined),
        });
      } catch (error) {
        finish(error);
        return;
      }
      this.live.add(subscriber);
      // Events are handled one after another: finding a stream's base is a read.
      let handled: Promise<void> = Promise.resolve();
      const handle = async (recorded: Kurrent.RecordedEvent) => {
        if (recorded.streamId.startsWith('$$')) {
          bases.forget(recorded.streamId.slice(2));
          return;
        }
        if (!this.wanted(recorded, streamPrefix)) return;
        const stored = toStoredRecord(recorded);
        if (stored.position <= last) return; // never twice, never backwards
        const [event] = await bases.live([stored]);
        if (done || event === undefined) return;
        last = event.position;
        subscriber.next(event);
      };
      subscription.on('data', (resolved: Kurrent.AllStreamResolvedEvent) => {
        const recorded = resolved.event;
        if (done || !recorded) return;
        handled = handled.then(() => handle(recorded)).catch((error: unknown) => finish(error));
      });
      subscription.on('error', (error: Error) => finish(error));
      subscription.on('end', () => finish(new Error('KurrentDB ended the $all subscription')));
      return () => {
        done = true;
        this.live.delete(subscriber);
        const stopped = subscription.unsubscribe().catch(() => undefined);
        this.unsubscribing.add(stopped);
        void stopped.finally(() => this.unsubscribing.delete(stopped));
      };
    });
  }

  /**
   * Soft-deletes the stream at the revision it read (another writer in between makes it read again),
   * then the tag streams whose every link points into it (links into it resolve to nothing anyway).
   */
  async deleteStream(streamId: string): Promise<DeletedStream> {
    this.assertOpen();
    for (let attempt = 1; ; attempt++) {
      const events = await this.readStream(streamId);
      if (events.length === 0) return { records: 0, position: 0 };
      const last = events[events.length - 1]!;
      const base = await this.baseOf(streamId);
      try {
        await this.client.deleteStream(streamId, { expectedRevision: BigInt((base ?? 0) + last.revision) });
      } catch (error) {
        if (isWrongExpectedVersion(error) && attempt < this.maxAppendAttempts) continue;
        throw error;
      }
      this.known.delete(streamId);
      const tags = new Set(events.flatMap((event) => event.tags ?? []));
      for (const tag of tags) await this.deleteTagStreamOf(tag, streamId);
      return { records: events.length, position: last.position };
    }
  }

  /** Soft-deletes a tag stream when all its links point into `streamId`. */
  private async deleteTagStreamOf(tag: string, streamId: string): Promise<void> {
    const name = tagStreamName(tag);
    const links = await this.readKurrentLinks(name);
    if (links.length === 0 || links.some((link) => linkTarget(link)?.streamId !== streamId)) return;
    try {
      await this.client.deleteStream(name, { expectedRevision: ANY });
    } catch (error) {
      // Another append linked into it meanwhile: it stays, its links into the deleted stream resolve to nothing.
      if (!isWrongExpectedVersion(error) && !isStreamNotFound(error)) throw error;
    }
  }

  /** The raw data of a tag stream's links. */
  private async readKurrentLinks(name: string): Promise<Uint8Array[]> {
    const links: Uint8Array[] = [];
    try {
      for await (const resolved of this.client.readStream(name, { fromRevision: 'start', direction: 'forwards', resolveLinkTos: false })) {
        const data = resolved.event?.data;
        if (data instanceof Uint8Array) links.push(data);
      }
    } catch (error) {
      if (isStreamNotFound(error)) return [];
      throw error;
    }
    return links;
  }

  /** Completes live subscriptions, waits until they are cancelled, disposes an owned client. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const subscriber of [...this.live]) subscriber.complete();
      await Promise.all([...this.unsubscribing]);
      if (this.options.ownsClient) await this.client.dispose();
    })();
    return this.closing;
  }

  /**
   * Brings the stream's index up to date, reading only the events after what is known.
   * Concurrent catch-ups of one stream may overlap; each adds only revisions above the known one.
   */
  private async catchUp(streamId: string): Promise<StreamIndex> {
    let index = this.known.get(streamId);
    if (index) this.known.delete(streamId); // re-inserted below as the most recently used
    index ??= emptyIndex();
    this.known.set(streamId, index);
    for (const stale of this.known.keys()) {
      if (this.known.size <= this.knownStreams) break;
      this.known.delete(stale);
    }
    // From the last known event on: if it is no longer there, the stream was deleted since (by
    // any process), and what is known of it is void: its ids may be written again.
    let read = await this.readKurrentStream(streamId, index.last < 0 ? 'start' : BigInt(index.last));
    if (index.last >= 0 && (read[0]?.revision !== index.last || read[0].recordId.toLowerCase() !== index.lastId)) {
      const fresh = emptyIndex();
      this.known.set(streamId, fresh);
      index = fresh;
      read = await this.readKurrentStream(streamId, 'start');
    }
    for (const event of read) {
      if (event.revision <= index.last) continue;
      if (index.last < 0) index.base = event.revision;
      index.events.set(event.recordId.toLowerCase(), { revision: event.revision, position: event.position });
      index.last = event.revision;
      index.lastId = event.recordId.toLowerCase();
    }
    return index;
  }

  /** One append of link events per tag stream, in parallel; ANY because tag streams are shared. */
  private async linkTags(streamId: string, events: NewRecord[], index: StreamIndex): Promise<void> {
    const links = new Map<string, Kurrent.EventData[]>();
    for (const event of events) {
      const stored = index.events.get(event.recordId.toLowerCase());
      if (!stored) throw new Error(`stream ${streamId}: event ${event.recordId} to tag is not in the stream`);
      for (const tag of uniqueTags(event)) {
        const link = toLinkEvent(tag, { streamId, revision: stored.revision, recordId: event.recordId });
        links.set(tag, [...(links.get(tag) ?? []), link]);
      }
    }
    await Promise.all([...links].map(([tag, data]) => this.client.appendToStream(tagStreamName(tag), data, { streamState: ANY })));
  }

  /**
   * Server-side filter: the stream prefix, or else everything but system events (which also
   * drops the `$>` tag links). Only one filter per request, so with a prefix the client-side
   * check in wanted() drops links and system events in the unlikely case the prefix matches them.
   */
  private filter(streamPrefix: string | undefined): Kurrent.Filter {
    const { streamNameFilter, excludeSystemEvents } = kurrent();
    return streamPrefix ? streamNameFilter({ prefixes: [streamPrefix] }) : excludeSystemEvents();
  }

  private wanted(recorded: { type: string; streamId: string }, streamPrefix: string | undefined): boolean {
    return isPortRecord(recorded) && (!streamPrefix || recorded.streamId.startsWith(streamPrefix));
  }

  private assertOpen(): void {
    if (this.closing) throw new Error('event store is closed');
  }
}

/** Stream reads: older servers put the position on the resolved event rather than the record. */
function withPosition(resolved: Kurrent.ResolvedEvent): Kurrent.RecordedEvent {
  const recorded = resolved.event!;
  if (recorded.position || resolved.commitPosition === undefined) return recorded;
  return { ...recorded, position: { commit: resolved.commitPosition, prepare: resolved.commitPosition } };
}

function validate(events: NewRecord[]): void {
  if (events.length === 0) throw new Error('append needs at least one event');
  if (new Set(events.map((event) => event.recordId.toLowerCase())).size !== events.length) {
    throw new Error('append batch contains the same event id twice');
  }
}

/** KurrentDB's metadata stream of a stream (or of every stream under a prefix): `$$<stream>`. */
function metadataStreamOf(streamId: string): string {
  return `$$${streamId}`;
}

/**
 * Streams' bases, each read once (per read of $all, or per subscription until its metadata changes):
 * which events of $all are live, and their port revisions.
 */
class BaseCache {
  private readonly bases = new Map<string, Promise<number | null>>();

  constructor(private readonly read: (streamId: string) => Promise<number | null>) {}

  /** The events that are still readable in their stream, with their port revisions. */
  async live(events: StoredRecord[]): Promise<StoredRecord[]> {
    const kept: StoredRecord[] = [];
    for (const event of events) {
      let base = this.bases.get(event.streamId);
      if (base === undefined) this.bases.set(event.streamId, (base = this.read(event.streamId)));
      const from = await base;
      if (from !== null && event.revision >= from) kept.push(portRevision(event, from));
    }
    return kept;
  }

  forget(streamId: string): void {
    this.bases.delete(streamId);
  }
}
