import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import * as Kurrent from '@kurrent/kurrentdb-client';

/**
 * An in-memory stand-in for the parts of KurrentDBClient that KurrentLogStore calls, following
 * the client's documented behaviour and the server's as documented (no server can run here):
 *  - $all positions are log offsets, increasing but not consecutive, commit = prepare per event;
 *  - the server writes system events of its own ($-typed, in $-streams) between ours;
 *  - appendToStream checks the stream state and throws the client's WrongExpectedVersionError;
 *    it deduplicates an append whose ids are already the stream's events at that place (what
 *    the server does for a repeat at the same revision, and best effort for ANY), otherwise it
 *    writes the ids again: the server does not enforce unique ids;
 *  - readStream throws StreamNotFoundError for a stream that does not exist, resolves `$>`
 *    links when asked, and carries $all positions on the records (server 22.6+);
 *  - readAll forwards includes the event at fromPosition; filters count matching events only;
 *  - subscribeToAll starts after fromPosition, catches up, then goes live, in log order;
 *  - deleteStream soft-deletes: it writes the stream's metadata ($metadata in `$$<stream>`) with a
 *    truncate-before past its last event; reads then find no stream, links to its events resolve to
 *    nothing, $all keeps the events (until a scavenge, which never runs here), and an append (with
 *    NO_STREAM) starts it again, numbering on from where it was.
 * It is the test double for the adapter's logic, not evidence of the server's behaviour.
 */
interface Record {
  streamId: string;
  revision: number;
  id: string;
  type: string;
  contentType: string;
  data: Uint8Array;
  metadata: Uint8Array;
  position: number;
}

export class FakeKurrentClient {
  private readonly log: Record[] = [];
  private readonly streams = new Map<string, Record[]>();
  /** Soft-deleted streams: the revision their readable events start at. */
  private readonly truncateBefore = new Map<string, number>();
  private readonly subscriptions = new Set<FakeSubscription>();
  private nextPosition = 1_000;
  private appends = 0;
  /** Called before each append is applied (after its first await): lets a test slip a write in. */
  beforeAppend: ((streamId: string) => void) | undefined;
  /** Makes the next append to a stream matching the predicate fail (a lost connection, say). */
  failNextAppend: ((streamId: string) => boolean) | undefined;
  disposed = false;

  constructor() {
    this.writeSystemEvent('$settings', '$settings');
    this.writeSystemEvent('$stats-127.0.0.1:2113', '$statistics-collected');
  }

  asClient(): Kurrent.KurrentDBClient {
    return this as unknown as Kurrent.KurrentDBClient;
  }

  /** Another writer's append, applied at once (e.g. from beforeAppend, to land between a check and a write). */
  appendNow(streamName: string, events: Kurrent.EventData[]): void {
    for (const event of events) this.write(streamName, event.type, event.contentType, encodeData(event), encodeMetadata(event.metadata), event.id);
    this.wakeSubscriptions();
  }

  /** All records of a stream, as stored (for assertions). */
  rawStream(streamId: string): readonly Record[] {
    return this.streams.get(streamId) ?? [];
  }

  async appendToStream(
    streamName: string,
    eventOrEvents: Kurrent.EventData | Kurrent.EventData[],
    options: Kurrent.AppendToStreamOptions = {},
  ): Promise<Kurrent.AppendResult> {
    this.assertOpen();
    await new Promise((resolve) => setImmediate(resolve));
    this.beforeAppend?.(streamName);
    if (this.failNextAppend?.(streamName)) {
      this.failNextAppend = undefined;
      throw new Kurrent.UnavailableError(undefined, 'fake: connection lost');
    }
    const events = Array.isArray(eventOrEvents) ? eventOrEvents : [eventOrEvents];
    const stream = this.live(streamName);
    const current = stream.length === 0 ? -1 : stream[stream.length - 1]!.revision;
    const repeat = this.repeatedAppend(stream, events);
    if (repeat)
      return {
        success: true,
        nextExpectedRevision: BigInt(repeat.revision),
        position: { commit: BigInt(repeat.position), prepare: BigInt(repeat.position) },
      };
    const state = options.streamState ?? Kurrent.ANY;
    const ok =
      state === Kurrent.ANY ||
      (state === Kurrent.NO_STREAM ? current === -1 : state === Kurrent.STREAM_EXISTS ? current >= 0 : BigInt(current) === state);
    if (!ok) {
      throw new Kurrent.WrongExpectedVersionError(undefined, {
        streamName,
        expected: state,
        current: current === -1 ? Kurrent.NO_STREAM : BigInt(current),
      });
    }
    let last: Record | undefined;
    for (const event of events) {
      last = this.write(streamName, event.type, event.contentType, encodeData(event), encodeMetadata(event.metadata), event.id);
    }
    if (++this.appends % 3 === 0) this.writeSystemEvent('$stats-127.0.0.1:2113', '$statistics-collected');
    this.wakeSubscriptions();
    return {
      success: true,
      nextExpectedRevision: BigInt(last!.revision),
      position: { commit: BigInt(last!.position), prepare: BigInt(last!.position) },
    };
  }

  readStream(streamName: string, options: Kurrent.ReadStreamOptions = {}): AsyncIterableIterator<Kurrent.ResolvedEvent> {
    const self = this;
    return (async function* () {
      self.assertOpen();
      await Promise.resolve();
      const stream = self.live(streamName);
      if (stream.length === 0) throw new Kurrent.StreamNotFoundError(undefined, streamName);
      const backwards = options.direction === Kurrent.BACKWARDS;
      const from = options.fromRevision ?? (backwards ? Kurrent.END : Kurrent.START);
      const maxCount = Number(options.maxCount ?? Number.MAX_SAFE_INTEGER);
      let records = backwards ? [...stream].reverse() : stream;
      if (typeof from === 'bigint') records = records.filter((r) => (backwards ? r.revision <= Number(from) : r.revision >= Number(from)));
      for (const record of records.slice(0, maxCount)) yield self.resolve(record, options.resolveLinkTos ?? false);
    })();
  }

  readAll(options: Kurrent.ReadAllOptions = {}): AsyncIterableIterator<Kurrent.AllStreamResolvedEvent> {
    const self = this;
    return (async function* () {
      self.assertOpen();
      await Promise.resolve();
      const backwards = options.direction === Kurrent.BACKWARDS;
      const from = options.fromPosition ?? (backwards ? Kurrent.END : Kurrent.START);
      let records = backwards ? [...self.log].reverse() : self.log;
      if (typeof from === 'object')
        records = records.filter((r) => (backwards ? r.position <= Number(from.commit) : r.position >= Number(from.commit)));
      let count = 0;
      for (const record of records) {
        if (count >= Number(options.maxCount ?? Number.MAX_SAFE_INTEGER)) return;
        if (!matches(options.filter, record)) continue;
        count++;
        yield self.resolve(record, options.resolveLinkTos ?? false) as Kurrent.AllStreamResolvedEvent;
      }
    })();
  }

  subscribeToAll(options: Kurrent.SubscribeToAllOptions = {}): Kurrent.AllStreamSubscription {
    this.assertOpen();
    const from = options.fromPosition ?? Kurrent.START;
    const after = from === Kurrent.START ? 0 : from === Kurrent.END ? this.nextPosition : Number(from.commit);
    const subscription = new FakeSubscription(this, after, options.filter, (s) => this.subscriptions.delete(s));
    this.subscriptions.add(subscription);
    setImmediate(() => subscription.pump());
    return subscription as unknown as Kurrent.AllStreamSubscription;
  }

  async deleteStream(streamName: string, options: Kurrent.DeleteStreamOptions = {}): Promise<Kurrent.DeleteResult> {
    this.assertOpen();
    await new Promise((resolve) => setImmediate(resolve));
    const stream = this.live(streamName);
    const current = stream.length === 0 ? -1 : stream[stream.length - 1]!.revision;
    const state = options.expectedRevision ?? Kurrent.ANY;
    if (state !== Kurrent.ANY && (typeof state !== 'bigint' || BigInt(current) !== state)) {
      throw new Kurrent.WrongExpectedVersionError(undefined, {
        streamName,
        expected: state,
        current: current === -1 ? Kurrent.NO_STREAM : BigInt(current),
      });
    }
    const all = this.streams.get(streamName) ?? [];
    this.truncateBefore.set(streamName, all.length);
    const metadata = new TextEncoder().encode(JSON.stringify({ $tb: all.length }));
    const written = this.write(`$$${streamName}`, '$metadata', 'application/json', metadata, new Uint8Array(), randomUUID());
    this.wakeSubscriptions();
    return { position: { commit: BigInt(written.position), prepare: BigInt(written.position) } };
  }

  /** The readable events of a stream: all of them, or those after its soft delete. */
  private live(streamName: string): Record[] {
    const stream = this.streams.get(streamName) ?? [];
    const from = this.truncateBefore.get(streamName) ?? 0;
    return from === 0 ? stream : stream.filter((record) => record.revision >= from);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    for (const subscription of [...this.subscriptions]) await subscription.unsubscribe();
  }

  /** @internal records after a position, for subscriptions */
  recordsAfter(position: number): Record[] {
    return this.log.filter((record) => record.position > position);
  }

  /** @internal */
  resolve(record: Record, resolveLinks: boolean): Kurrent.ResolvedEvent {
    if (resolveLinks && record.type === '$>') {
      const [revision, ...rest] = new TextDecoder().decode(record.data).split('@');
      const target = this.live(rest.join('@')).find((r) => r.revision === Number(revision));
      return target
        ? { event: toRecorded(target), link: toRecorded(record) as never, commitPosition: BigInt(record.position) }
        : { event: toRecorded(record), commitPosition: BigInt(record.position) };
    }
    return { event: toRecorded(record), commitPosition: BigInt(record.position) };
  }

  /** The ids already are the stream's events from where the first one sits: the server acknowledges without writing. */
  private repeatedAppend(stream: Record[], events: Kurrent.EventData[]): Record | undefined {
    const start = stream.findIndex((record) => record.id === events[0]!.id);
    if (start === -1) return undefined;
    const same = events.every((event, i) => stream[start + i]?.id === event.id);
    return same ? stream[start + events.length - 1] : undefined;
  }

  private writeSystemEvent(streamId: string, type: string): void {
    this.write(streamId, type, 'application/json', new TextEncoder().encode('{}'), new Uint8Array(), randomUUID());
  }

  private write(streamId: string, type: string, contentType: string, data: Uint8Array, metadata: Uint8Array, id: string): Record {
    const stream = this.streams.get(streamId) ?? [];
    this.streams.set(streamId, stream);
    const record: Record = { streamId, revision: stream.length, id, type, contentType, data, metadata, position: this.nextPosition };
    this.nextPosition += 64 + data.length + metadata.length + streamId.length;
    stream.push(record);
    this.log.push(record);
    return record;
  }

  private wakeSubscriptions(): void {
    for (const subscription of this.subscriptions) setImmediate(() => subscription.pump());
  }

  private assertOpen(): void {
    if (this.disposed) throw new Error('fake client disposed');
  }
}

class FakeSubscription extends EventEmitter {
  private stopped = false;

  constructor(
    private readonly client: FakeKurrentClient,
    private after: number,
    private readonly filter: Kurrent.Filter | undefined,
    private readonly onStop: (subscription: FakeSubscription) => void,
  ) {
    super();
  }

  pump(): void {
    for (const record of this.client.recordsAfter(this.after)) {
      if (this.stopped) return;
      this.after = record.position;
      if (matches(this.filter, record)) this.emit('data', this.client.resolve(record, false));
    }
  }

  async unsubscribe(): Promise<void> {
    this.stopped = true;
    this.onStop(this);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function matches(filter: Kurrent.Filter | undefined, record: Record): boolean {
  if (!filter) return true;
  const subject = filter.filterOn === Kurrent.STREAM_NAME ? record.streamId : record.type;
  if ('prefixes' in filter) return filter.prefixes.some((prefix) => subject.startsWith(prefix));
  return new RegExp(filter.regex).test(subject);
}

function toRecorded(record: Record): Kurrent.RecordedEvent {
  const isJson = record.contentType === 'application/json';
  const text = new TextDecoder().decode(record.data);
  return {
    streamId: record.streamId,
    id: record.id,
    isJson,
    revision: BigInt(record.revision),
    type: record.type,
    created: new Date(),
    data: isJson ? JSON.parse(text) : record.data,
    metadata: record.metadata.length ? JSON.parse(new TextDecoder().decode(record.metadata)) : undefined,
    position: { commit: BigInt(record.position), prepare: BigInt(record.position) },
  } as Kurrent.RecordedEvent;
}

function encodeData(event: Kurrent.EventData): Uint8Array {
  return event.contentType === 'application/json' ? new TextEncoder().encode(JSON.stringify(event.data)) : (event.data as Uint8Array);
}

function encodeMetadata(metadata: unknown): Uint8Array {
  if (metadata === undefined) return new Uint8Array();
  return metadata instanceof Uint8Array ? metadata : new TextEncoder().encode(JSON.stringify(metadata));
}
