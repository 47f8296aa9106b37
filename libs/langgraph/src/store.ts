import {
  BaseStore,
  type GetOperation,
  type Item,
  type ListNamespacesOperation,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchItem,
  type SearchOperation,
  validateNamespace,
} from '@langchain/langgraph-checkpoint';
import {
  type AuditResponse,
  type HistoryResponse,
  type MemoTraceClient,
  type MemoryClient,
  MemoTraceError,
  type WireCommandInput,
} from '@memotrace/client';
import { ITEM_RELATION, type ItemAtCut, itemEntityId, itemFactId, itemOfVersion, putCommands } from './item-facts';
import { hasPrefix, listNamespaces } from './namespaces';
import { matchesFilter } from './value-filter';

export interface MemoTraceStoreOptions {
  memoryId: string;
  /**
   * The fields of a value that MemoTrace search indexes, as LangGraph paths (`text`, `metadata.title`,
   * `chapters[*].content`; `$` is the whole value as JSON), or false for none. A put's own `index` overrides
   * it. Default `['$']`.
   */
  index?: { fields: string[] } | false;
  /** Recorded as every command's actor (a server with API keys records the key's id instead). Default `langgraph`. */
  actor?: string;
  /**
   * How many items of each kind a query search asks MemoTrace for (at least offset + limit): an item whose
   * fact and text both rank below that many is not found. Default 100; MemoTrace takes at most 1000.
   */
  searchDepth?: number;
}

/** One version of an item, as its history lists it; `value` null for a version that did not hold a store item. */
export interface ItemVersion {
  factId: string;
  value: Record<string, unknown> | null;
  createdAt: Date;
  /** The record interval [recordedFrom, recordedTo) during which the memory held this value; open when recordedTo is null. */
  recordedFrom: Date;
  recordedTo: Date | null;
}

/** The contract's batch limit: a larger LangGraph batch is written in several MemoTrace batches, in order. */
const MAX_COMMANDS = 1000;

/** What a store and the views made from it share: the position of the last write, which every read waits for. */
interface Written {
  position: number;
}

/**
 * A LangGraph `BaseStore` kept in a MemoTrace memory (see ./item-facts.ts for the mapping). Reads of a batch
 * answer the state before its writes, as LangGraph's own stores do; its writes go in one atomic MemoTrace
 * batch, the last operation on a key winning. Reads wait for this store's own writes (read-your-writes).
 * `asOf(recordedAt)` is a read-only view of the store as the memory held it at that record time.
 */
export class MemoTraceStore extends BaseStore {
  private readonly memory: MemoryClient;
  /** Set on a view made by `asOf`. */
  private recordedAt: string | undefined;
  private written: Written = { position: 0 };

  constructor(
    private readonly client: MemoTraceClient,
    private readonly options: MemoTraceStoreOptions,
  ) {
    super();
    this.memory = client.memory(options.memoryId);
  }

  /** The store as the memory held it at `recordedAt`: every read answers that record time, writes are refused. */
  asOf(recordedAt: string | Date): MemoTraceStore {
    const view = new MemoTraceStore(this.client, this.options);
    view.recordedAt = typeof recordedAt === 'string' ? recordedAt : recordedAt.toISOString();
    view.written = this.written;
    return view;
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const puts = operations.filter((op): op is PutOperation => 'value' in op);
    if (puts.length > 0 && this.recordedAt !== undefined) throw new Error(`this store is a read-only view at ${this.recordedAt}`);
    for (const op of puts) {
      if (op.value === null) continue;
      validateNamespace(op.namespace);
      if (typeof op.value !== 'object' || Array.isArray(op.value)) throw new TypeError(`the value of ${JSON.stringify(op.key)} is not a JSON object`);
    }
    const reader = new CutReader(this.memory, this.recordedAt, this.written.position, this.options.searchDepth ?? 100);
    const results = await Promise.all(
      operations.map((op): Promise<unknown> => {
        if ('value' in op) return Promise.resolve(undefined);
        if ('namespacePrefix' in op) return reader.search(op);
        if ('key' in op) return reader.get(op);
        return reader.listNamespaces(op);
      }),
    );
    if (puts.length > 0) await this.write(puts);
    return results as OperationResults<Op>;
  }

  /** Every version of the item, oldest first (at this view's record time): a delete ends one without a successor. */
  async history(namespace: string[], key: string): Promise<ItemVersion[]> {
    const factId = itemFactId(namespace, key);
    const query = new URLSearchParams();
    if (this.recordedAt !== undefined) query.set('recordedAt', this.recordedAt);
    if (this.written.position > 0) query.set('minPosition', String(this.written.position));
    const path = `/v1/memories/${encodeURIComponent(this.options.memoryId)}/facts/${encodeURIComponent(factId)}/history?${query}`;
    const history = await orNothing(this.client.request<HistoryResponse>('GET', path));
    return (history?.versions ?? []).map((version) => ({
      factId,
      value: itemOfVersion(version)?.item.value ?? null,
      createdAt: new Date(version.validFrom),
      recordedFrom: new Date(version.recordedFrom),
      recordedTo: version.recordedTo === null ? null : new Date(version.recordedTo),
    }));
  }

  /** The item's audit: every log record that touched its fact, with command id, actor, reason and record time. */
  async audit(namespace: string[], key: string): Promise<AuditResponse> {
    const factId = itemFactId(namespace, key);
    return (await orNothing(this.memory.audit(factId))) ?? { factId, events: [] };
  }

  private async write(puts: PutOperation[]): Promise<void> {
    const last = new Map<string, PutOperation>();
    for (const op of puts) last.set(JSON.stringify([op.namespace, op.key]), op);
    const fields = this.options.index === false ? false : (this.options.index?.fields ?? ['$']);
    // A delete archives the item's fact, which fails when it has no open version: another writer may delete it
    // between the check and the write, so the check is redone (on the log itself) a few times.
    for (let attempt = 1; ; attempt++) {
      const open = await this.openFacts([...last.values()].filter((op) => op.value === null));
      const commands = [...last.values()].flatMap((op): WireCommandInput[] => {
        if (op.value !== null) return putCommands(op.namespace, op.key, op.value, op.index ?? fields);
        const factId = itemFactId(op.namespace, op.key);
        return open.has(factId) ? [{ op: 'ARCHIVE_EDGE', factId }] : [];
      });
      try {
        await this.send(commands);
        return;
      } catch (error) {
        const raced = error instanceof MemoTraceError && (error.code === 'FACT_NOT_OPEN' || error.code === 'UNKNOWN_FACT');
        if (!raced || attempt >= 3) throw error;
      }
    }
  }

  private async send(commands: WireCommandInput[]): Promise<void> {
    const actor = this.options.actor ?? 'langgraph';
    for (let i = 0; i < commands.length; i += MAX_COMMANDS) {
      const { position } = await this.memory.commands(commands.slice(i, i + MAX_COMMANDS).map((c) => ({ ...c, actor })));
      this.written.position = Math.max(this.written.position, position);
    }
  }

  /** The item facts of these deletes that have an open version now, read by replay of the log (exact, not a projection). */
  private async openFacts(deletes: PutOperation[]): Promise<Set<string>> {
    const reader = new CutReader(this.memory, undefined, this.written.position, 0, 'replay');
    const found = await Promise.all(deletes.map((op) => reader.get(op)));
    return new Set(deletes.filter((_, i) => found[i] !== null).map((op) => itemFactId(op.namespace, op.key)));
  }
}

/** The answer, or undefined when the memory (never written) or the fact (never put) does not exist. */
async function orNothing<T>(answer: Promise<T>): Promise<T | undefined> {
  try {
    return await answer;
  } catch (error) {
    if (error instanceof MemoTraceError && (error.code === 'UNKNOWN_MEMORY' || error.code === 'UNKNOWN_FACT')) return undefined;
    throw error;
  }
}

/** The reads of one batch: one cut of the memory (its record time, or now), one listing of the items shared by its searches. */
class CutReader {
  private listing: Promise<{ items: ItemAtCut[]; recordedAt: string | undefined }> | undefined;

  constructor(
    private readonly memory: MemoryClient,
    private readonly recordedAt: string | undefined,
    private readonly minPosition: number,
    private readonly searchDepth: number,
    private readonly consistency: 'projection' | 'replay' = 'projection',
  ) {}

  private cut() {
    return {
      validAt: '*',
      consistency: this.consistency,
      ...(this.recordedAt === undefined ? {} : { recordedAt: this.recordedAt }),
      ...(this.minPosition > 0 ? { minPosition: this.minPosition } : {}),
    };
  }

  /** The item's fact: the one fact of its entity. */
  async get({ namespace, key }: GetOperation): Promise<Item | null> {
    const answer = await orNothing(this.memory.facts({ ...this.cut(), src: itemEntityId(namespace, key), rel: ITEM_RELATION }));
    const version = answer?.facts.find((f) => f.factId === itemFactId(namespace, key));
    return (version && itemOfVersion(version)?.item) ?? null;
  }

  /** Every item at the cut, and the record time the memory answered for (so a search reads the same cut). */
  private items(): Promise<{ items: ItemAtCut[]; recordedAt: string | undefined }> {
    this.listing ??= orNothing(this.memory.facts({ ...this.cut(), rel: ITEM_RELATION })).then((answer) => ({
      items: (answer?.facts ?? []).flatMap((version) => itemOfVersion(version) ?? []),
      recordedAt: answer?.cut.recordedAt,
    }));
    return this.listing;
  }

  /**
   * Without a query: the items under the prefix that pass the filter, most recently updated first. With one:
   * MemoTrace search at the same cut, each item scored by its best hit (its fact, or the mention of its
   * current text); items without a hit are not returned.
   */
  async search(op: SearchOperation): Promise<SearchItem[]> {
    const { items, recordedAt } = await this.items();
    const candidates = items.filter(({ item }) => hasPrefix(item.namespace, op.namespacePrefix) && matchesFilter(item.value, op.filter));
    const offset = op.offset ?? 0;
    const limit = op.limit ?? 10;
    if (op.query === undefined || op.query.trim() === '') {
      const recent = candidates.map(({ item }) => item).sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || compareKeys(a, b));
      return recent.slice(offset, offset + limit);
    }
    if (candidates.length === 0) return [];
    const byId = new Map<string, ItemAtCut>();
    for (const candidate of candidates) {
      byId.set(`fact:${candidate.factId}`, candidate);
      if (candidate.textId !== undefined) byId.set(`mention:${candidate.textId}`, candidate);
    }
    const k = Math.min(1000, Math.max(this.searchDepth, offset + limit));
    const found = await this.memory.search({
      query: op.query,
      validAt: '*',
      k,
      ...(recordedAt === undefined ? {} : { recordedAt }),
      ...(this.minPosition > 0 ? { minPosition: this.minPosition } : {}),
    });
    const best = new Map<ItemAtCut, number>();
    for (const hit of found.items) {
      const candidate = byId.get(`${hit.kind}:${hit.id}`);
      if (candidate !== undefined && hit.score > (best.get(candidate) ?? -Infinity)) best.set(candidate, hit.score);
    }
    return [...best]
      .sort(([a, x], [b, y]) => y - x || compareKeys(a.item, b.item))
      .slice(offset, offset + limit)
      .map(([{ item }, score]) => ({ ...item, score }));
  }

  async listNamespaces(op: ListNamespacesOperation): Promise<string[][]> {
    const { items } = await this.items();
    return listNamespaces(
      items.map(({ item }) => item.namespace),
      op,
    );
  }
}

function compareKeys(a: Item, b: Item): number {
  const x = JSON.stringify([a.namespace, a.key]);
  const y = JSON.stringify([b.namespace, b.key]);
  return x < y ? -1 : x > y ? 1 : 0;
}
