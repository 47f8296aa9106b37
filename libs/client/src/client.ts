import type {
  AccessResponse,
  AuditResponse,
  ChangesResponse,
  CommandsResponse,
  EntitiesResponse,
  EntityResponse,
  EpisodesResponse,
  ErrorCode,
  ErrorDetail,
  EventsResponse,
  FactsResponse,
  HistoryResponse,
  ImportResponse,
  MemoriesResponse,
  MentionView,
  MentionsResponse,
  SearchRequestInput,
  CheckRequestInput,
  CheckResponse,
  ConsolidateResponse,
  SearchResponse,
  TopicsResponse,
  TurnsRequestInput,
  TurnsResponse,
  DerivedResponse,
  ReextractResponse,
  ExtractionSettings,
  WireCommandInput,
} from '@memotrace/contracts';
import { randomUUID } from 'node:crypto';

/**
 * A typed client of the MemoTrace HTTP contract (SPEC §4). Commands are
 * retried on network errors and 5xx/408/503 with the same `commandId`s (assigned
 * here when absent), so a retry is idempotent even if the first attempt's outcome
 * was unknown. A service whose database is away (503 with `Retry-After`) is waited
 * for, as it says, within `retryWithinMs`; the error says when the client gave up.
 */

export class MemoTraceError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode | 'NETWORK' | 'UNEXPECTED_RESPONSE',
    message: string,
    readonly details?: ErrorDetail[],
    /** The service's `Retry-After`, in ms: when it says a retry may succeed. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'MemoTraceError';
  }
}

export interface MemoTraceClientOptions {
  /** e.g. http://127.0.0.1:8080 */
  url: string;
  /** A bearer API key. */
  apiKey?: string;
  /** Attempts per request on network errors and retryable statuses (default 4). */
  retries?: number;
  /** First retry delay in ms, doubled each time (default 100). */
  retryDelayMs?: number;
  /** How long a request keeps being retried while the service answers 503 with a `Retry-After` (default 30 000 ms). */
  retryWithinMs?: number;
  fetch?: typeof fetch;
}

export type Cut = { validAt?: string; recordedAt?: string };
/** Paging of a listing sorted by id: `after` is the previous page's `next`. */
export type Paging = { limit?: number; after?: string };
/** `src` may name several entities: the facts from any of them. */
export type FactsFilter = Cut &
  Paging & {
    src?: string | string[];
    rel?: string;
    dst?: string;
    /** `entities`: the answer also holds the entities its facts name; `mentions`: the mentions they cite (both: a list). */
    include?: 'entities' | 'mentions' | ('entities' | 'mentions')[];
    consistency?: 'projection' | 'replay';
    minPosition?: number;
  };
/** `entity`: the events about it (it takes part, or a fact of their evidence is from or to it). */
export type EventsFilter = Cut & Paging & { entity?: string; consistency?: 'projection' | 'replay'; minPosition?: number };
/**
 * Which entities `entities()` lists: `name` matches a name or alias case-insensitively (`match: 'prefix'`: as a
 * prefix), `type` one of its types; `after` is the previous page's `next`; `limit` defaults to 100 (at most 1000).
 */
export type EntitiesFilter = Cut & {
  name?: string;
  /** Only the entities these ids name (each as its canonical entity). */
  ids?: string[];
  match?: 'exact' | 'prefix';
  type?: string;
  limit?: number;
  after?: string;
  /** `facts`: the answer also holds the page's facts at the cut, with the entities they name (a page of at most 100 entities). */
  include?: 'facts';
  /** With `include=facts`: each entity keeps its first facts only; `facts.counts` says how many it has. */
  factsPerEntity?: number;
  consistency?: 'projection' | 'replay';
  minPosition?: number;
};
/** A page of a document's mentions: `after` is the previous page's `next`; `limit` defaults to 100 (at most 1000). */
export type MentionsOptions = Cut & { limit?: number; after?: string; consistency?: 'projection' | 'replay'; minPosition?: number };

const RETRYABLE = new Set([408, 429, 500, 502, 503, 504]);

export class MemoTraceClient {
  private readonly base: string;
  private readonly fetchImpl: typeof fetch;
  constructor(private readonly options: MemoTraceClientOptions) {
    this.base = options.url.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? fetch;
  }

  /** A view of one memory. */
  memory(memoryId: string): MemoryClient {
    return new MemoryClient(this, memoryId);
  }

  /**
   * The memories this client's key may read (all without access control), each with its position and
   * latest recordedAt, sorted by memoryId (`GET /v1/memories`).
   */
  listMemories(): Promise<MemoriesResponse> {
    return this.request('GET', '/v1/memories');
  }

  /** What this client's key may do: its id, access level and memories (`GET /v1/access`). */
  access(): Promise<AccessResponse> {
    return this.request('GET', '/v1/access');
  }

  /**
   * Starts a blue/green rebuild of the read models (`POST /v1/admin/rebuild`; a key for
   * all memories, `*`, with write access). `started` is false when one was already running.
   */
  async startRebuild(options: { to?: string } = {}): Promise<{ started: boolean; status: RebuildStatus }> {
    const { status, body } = await this.once('POST', '/v1/admin/rebuild', {
      body: JSON.stringify(options.to === undefined ? {} : { to: options.to }),
      withStatus: true,
    });
    return { started: status === 202, status: body as RebuildStatus };
  }

  /**
   * Deletes a memory entirely (`DELETE /v1/memories/{memoryId}`, an admin key): its log, read models,
   * search index and keys; its id then names an empty memory. 404 UNKNOWN_MEMORY when it has no log.
   * Not retried: a second attempt after an unknown outcome would find nothing to delete.
   */
  deleteMemory(memoryId: string): Promise<MemoryDeletedResponse> {
    return this.request('DELETE', `/v1/memories/${seg(memoryId)}`, { retry: false });
  }

  /** The running or last rebuild: state, progress (events done, rate, ETA), result or error. */
  rebuildStatus(): Promise<RebuildStatus> {
    return this.request('GET', '/v1/admin/rebuild');
  }

  /** Low level: one request with retries; parses JSON, throws MemoTraceError on a non-2xx. */
  async request<T = unknown>(method: string, path: string, init: RequestOptions & { retry?: boolean } = {}): Promise<T> {
    const attempts = Math.max(1, this.options.retries ?? 4);
    const until = Date.now() + (this.options.retryWithinMs ?? 30_000);
    let delay = this.options.retryDelayMs ?? 100;
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.once(method, path, init)) as T;
      } catch (error) {
        const retryable = error instanceof MemoTraceError && (error.code === 'NETWORK' || RETRYABLE.has(error.status));
        if (!retryable || init.retry === false) throw error;
        // A service that says when to come back (its database restarting) is waited for, within the bound.
        const told = error.status === 503 && error.retryAfterMs !== undefined;
        const wait = told ? Math.max(error.retryAfterMs!, delay) : delay * (0.5 + Math.random());
        if (told ? Date.now() + wait > until : attempt >= attempts) {
          if (attempt === 1) throw error;
          throw new MemoTraceError(
            error.status,
            error.code,
            `${error.message} (gave up after ${attempt} attempts)`,
            error.details,
            error.retryAfterMs,
          );
        }
        await new Promise((r) => setTimeout(r, wait));
        delay *= 2;
      }
    }
  }

  private async once(method: string, path: string, init: RequestOptions & { withStatus: true }): Promise<{ status: number; body: unknown }>;
  private async once(method: string, path: string, init: RequestOptions): Promise<unknown>;
  private async once(method: string, path: string, init: RequestOptions & { withStatus?: boolean }): Promise<unknown> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.options.apiKey) headers['authorization'] = `Bearer ${this.options.apiKey}`;
    if (init.body !== undefined) headers['content-type'] = init.contentType ?? 'application/json';
    let response: Response;
    try {
      const body =
        init.onUploadProgress && init.body !== undefined ? countingStream(Buffer.from(init.body, 'utf8'), init.onUploadProgress) : init.body;
      response = await this.fetchImpl(this.base + path, {
        method,
        headers,
        body,
        ...(typeof body === 'object' ? { duplex: 'half' } : {}),
      } as RequestInit);
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message;
      throw new MemoTraceError(0, 'NETWORK', `cannot reach ${this.base}: ${cause ?? (error as Error).message}`);
    }
    const text = await response.text();
    if (response.ok) {
      if (init.raw) return text;
      if (init.withStatus) return { status: response.status, body: JSON.parse(text) };
      try {
        return JSON.parse(text);
      } catch {
        throw new MemoTraceError(response.status, 'UNEXPECTED_RESPONSE', `response is not JSON (HTTP ${response.status})`);
      }
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const error = isObject(body) ? body['error'] : undefined;
    const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
    const retryAfterMs = Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : undefined;
    if (isObject(error) && typeof error['code'] === 'string') {
      const details = error['details'] as ErrorDetail[] | undefined;
      throw new MemoTraceError(response.status, error['code'] as ErrorCode, String(error['message']), details, retryAfterMs);
    }
    throw new MemoTraceError(response.status, 'UNEXPECTED_RESPONSE', `HTTP ${response.status}: ${text.slice(0, 200)}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

interface RequestOptions {
  body?: string;
  contentType?: string;
  raw?: boolean;
  /** Streams the body, reporting the bytes handed to the connection so far. */
  onUploadProgress?: (sentBytes: number, totalBytes: number) => void;
}

/** The body as a stream of 64 KiB chunks, reporting each chunk as the connection takes it. */
function countingStream(bytes: Buffer, onProgress: (sent: number, total: number) => void): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= bytes.length) {
        controller.close();
        return;
      }
      const chunk = bytes.subarray(sent, sent + 64 * 1024);
      sent += chunk.length;
      controller.enqueue(new Uint8Array(chunk));
      onProgress(sent, bytes.length);
    },
  });
}

/** `DELETE /v1/memories/{memoryId}`: how many log records went with the memory. */
export interface MemoryDeletedResponse {
  memoryId: string;
  deleted: true;
  records: number;
}

/** What an erasure names: exactly one of an entity, a fact, a mention, or a document (all its mentions). */
export type ErasureSubject = { entityId: string } | { factId: string } | { mentionId: string } | { docId: string };

/** `GET /v1/admin/rebuild` (services/projector/src/rebuild-job.ts). */
export interface RebuildStatus {
  state: 'idle' | 'running' | 'done' | 'failed';
  to: string | null;
  startedAt: string | null;
  progress: {
    schema: string;
    phase: string;
    done: number;
    total: number;
    applied: number;
    eventsPerSecond: number;
    etaSeconds: number | null;
    elapsedMs: number;
  } | null;
  result: { schema: string; mode: 'switched' | 'snapshot'; position: number; applied: number; elapsedMs: number; eventsPerSecond: number } | null;
  error: string | null;
}

/** A query string; a list is the parameter once per value (`src=a&src=b`). */
function query(params: Record<string, string | number | readonly string[] | undefined>): string {
  const entries = Object.entries(params).flatMap(([k, v]): [string, string][] =>
    v === undefined ? [] : typeof v === 'object' ? v.map((one) => [k, one]) : [[k, String(v)]],
  );
  return entries.length === 0 ? '' : '?' + new URLSearchParams(entries).toString();
}

const seg = encodeURIComponent;

export class MemoryClient {
  private readonly path: string;
  constructor(
    private readonly client: MemoTraceClient,
    readonly memoryId: string,
  ) {
    this.path = `/v1/memories/${seg(memoryId)}`;
  }

  /**
   * Records dialog turns (`POST …/turns`): each a mention of session `sessionId`; with `extraction` `sync`
   * (the default) what the server's extractor derives from them joins the same atomic batch. A retried
   * turn is a duplicate (its command id is derived from its content), so retries never double it.
   */
  turns(request: TurnsRequestInput): Promise<TurnsResponse> {
    return this.client.request('POST', `${this.path}/turns`, { body: JSON.stringify(request) });
  }

  /**
   * Derives again from the recorded turns, all sessions' or `sessionId`'s (`POST …/reextract`): async jobs for the
   * server's current extractor. The same extractor version derives nothing new; a new version's commands supersede.
   */
  reextract(request: { sessionId?: string } = {}): Promise<ReextractResponse> {
    return this.client.request('POST', `${this.path}/reextract`, { body: JSON.stringify(request) });
  }

  /** The memory's extraction gate and the server's extractor (`GET …/extraction`). */
  extraction(): Promise<ExtractionSettings> {
    return this.client.request('GET', `${this.path}/extraction`);
  }

  /** Sets the memory's extraction gate (`SET_EXTRACTION_GATE`, a logged command); null returns to the server's default. */
  setExtractionGate(gate: number | null): Promise<CommandsResponse> {
    return this.commands([{ op: 'SET_EXTRACTION_GATE', gate }]);
  }

  /** The commands derived from a mention (a dialog turn), in log order (`GET …/mentions/{mentionId}/derived`). */
  derived(mentionId: string): Promise<DerivedResponse> {
    return this.client.request('GET', `${this.path}/mentions/${seg(mentionId)}/derived`);
  }

  /** Applies a batch atomically; commands without a `commandId` get one here, so retries are idempotent. */
  commands(commands: WireCommandInput[]): Promise<CommandsResponse> {
    const withIds = commands.map((c) => (c.commandId === undefined ? { ...c, commandId: `cli-${randomUUID()}` } : c));
    return this.client.request('POST', `${this.path}/commands`, { body: JSON.stringify({ commands: withIds }) });
  }

  /**
   * Erases the subject's content at every record time (ERASE, SPEC §5.2; an admin key when keys are
   * configured): names, aliases, types, literals, sources, summaries, mention texts and speakers become
   * null, ids and structure stay. `reason` is kept in the audit. Retried like any command (same commandId).
   */
  erase(subject: ErasureSubject, reason: string, options: { commandId?: string; recordedAt?: string } = {}): Promise<CommandsResponse> {
    // Through unknown: the contract's inferred ERASE input type has `reason` as undefined
    // (its envelope's optional reason and the required one intersect).
    const command = { op: 'ERASE', subject, reason, ...options } as unknown as WireCommandInput;
    return this.commands([command]);
  }

  facts(filter: FactsFilter = {}): Promise<FactsResponse> {
    return this.client.request('GET', `${this.path}/facts${query(filter)}`);
  }

  history(factId: string, options: { recordedAt?: string } = {}): Promise<HistoryResponse> {
    return this.client.request('GET', `${this.path}/facts/${seg(factId)}/history${query(options)}`);
  }

  audit(factId: string): Promise<AuditResponse> {
    return this.client.request('GET', `${this.path}/facts/${seg(factId)}/audit`);
  }

  entity(entityId: string, options: { recordedAt?: string } = {}): Promise<EntityResponse> {
    return this.client.request('GET', `${this.path}/entities/${seg(entityId)}${query(options)}`);
  }

  /** A page of the entities visible at the cut's record time, sorted by entityId, e.g. `entities({name: 'Alice'})`. */
  entities(filter: EntitiesFilter = {}): Promise<EntitiesResponse> {
    return this.client.request('GET', `${this.path}/entities${query(filter)}`);
  }

  events(filter: EventsFilter = {}): Promise<EventsResponse> {
    return this.client.request('GET', `${this.path}/events${query(filter)}`);
  }

  /** A page of the episodes visible in the cut (each listing only its visible events); `limit` defaults to 100. */
  episodes(options: Cut & Paging & { consistency?: 'projection' | 'replay'; minPosition?: number } = {}): Promise<EpisodesResponse> {
    return this.client.request('GET', `${this.path}/episodes${query(options)}`);
  }

  /**
   * A page of the durative topics visible in the cut (SPEC 5.4; each listing only its visible members); `validAt`
   * defaults to `*` here: a given one keeps the topics whose window holds it.
   */
  topics(options: Cut & Paging & { consistency?: 'projection' | 'replay'; minPosition?: number } = {}): Promise<TopicsResponse> {
    return this.client.request('GET', `${this.path}/topics${query(options)}`);
  }

  /**
   * SPEC 5.4: runs the memory's evolution now (cooling and warming, episodes, topics) and lists merge
   * suggestions; what it appends has command ids derived from its inputs, so a retry appends nothing twice.
   */
  consolidate(): Promise<ConsolidateResponse> {
    return this.client.request('POST', `${this.path}/consolidate`, { body: '{}' });
  }

  /**
   * One page of the mentions of document `docId` (a conversation's turns: docId = sessionId), in document
   * order. For the next page pass the answer's `next` as `after` and its `cut.recordedAt`, so both pages
   * answer one cut; `allMentions` does that.
   */
  mentions(docId: string, options: MentionsOptions = {}): Promise<MentionsResponse> {
    return this.client.request('GET', `${this.path}/mentions${query({ docId, ...options })}`);
  }

  /** Every mention of document `docId` in document order, page by page, all in the first page's cut. */
  async *allMentions(docId: string, options: Omit<MentionsOptions, 'after'> = {}): AsyncGenerator<MentionView> {
    let page = await this.mentions(docId, options);
    for (;;) {
      yield* page.mentions;
      if (page.next === null) return;
      page = await this.mentions(docId, { ...options, ...page.cut, after: page.next });
    }
  }

  /** One mention as recorded (404 UNKNOWN_MENTION when the memory has none by that id at the record time). */
  mention(
    mentionId: string,
    options: { recordedAt?: string; consistency?: 'projection' | 'replay'; minPosition?: number } = {},
  ): Promise<MentionView> {
    return this.client.request('GET', `${this.path}/mentions/${seg(mentionId)}${query(options)}`);
  }

  /**
   * Versions opened or closed in [from, to); without `to`, up to the request time. With `limit`, a page of whole
   * record instants: the answer's `next` is the `from` of the following page. `include: 'entities'`: with the entities
   * the versions name.
   */
  changes(from: string, to?: string, options: { limit?: number; include?: 'entities' } = {}): Promise<ChangesResponse> {
    return this.client.request('GET', `${this.path}/changes${query({ from, to, ...options })}`);
  }

  search(request: SearchRequestInput): Promise<SearchResponse> {
    return this.client.request('POST', `${this.path}/search`, { body: JSON.stringify(request) });
  }

  /**
   * SPEC 5.3: a verdict on each claim at the cut (supported, contradicted, outdated, not_yet_valid, retracted,
   * unknown) with the fact versions it rests on; `text` instead of `claims` has the memory's extractor read them.
   */
  check(request: CheckRequestInput): Promise<CheckResponse> {
    return this.client.request('POST', `${this.path}/check`, { body: JSON.stringify(request) });
  }

  /** The memory's log as JSONL text. */
  export(): Promise<string> {
    return this.client.request('GET', `${this.path}/export`, { raw: true });
  }

  /** Replays a JSONL log into this (empty) memory. Not retried: a second attempt would find the memory non-empty. */
  import(jsonl: string, options: { onUploadProgress?: (sentBytes: number, totalBytes: number) => void } = {}): Promise<ImportResponse> {
    return this.client.request('POST', `${this.path}/import`, { body: jsonl, contentType: 'application/x-ndjson', retry: false, ...options });
  }
}
