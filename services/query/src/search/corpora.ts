import type { Cut, SearchFeed } from '@memotrace/domain';
import { HttpError } from '@memotrace/http-kit';
import { DEFAULT_SEARCH_CACHE_VERSIONS } from '@memotrace/runtime';
import { MemoryCorpus } from './corpus';
import { CorpusCut, CutView } from './corpus-cut';

export interface CorporaOptions {
  /**
   * Most item versions kept over all memories; the least recently searched memories go first.
   * A memory with more than this alone is not loaded: its search answers 503 SEARCH_TOO_LARGE.
   */
  maxVersions: number;
  /**
   * Called when a memory's corpus is dropped for an erasure: a cache of vectors by text hash
   * (VectorLookup) forgets what it holds, as it cannot tell which of its texts were erased.
   */
  onErasure?: (memoryId: string) => void;
}

/**
 * A mark of the memory's erasures that moves with each one (PostgresSearchFeed: the log position
 * of the latest). An erasure changes rows the corpus holds without a new record time, so no delta
 * brings it: a corpus read before it is read again whole. A feed without it cannot tell erasures.
 */
export interface ErasureMark {
  erasureMark(memoryId: string): Promise<number>;
}

interface CorpusEntry {
  corpus: MemoryCorpus;
  refreshed: Promise<void>;
  mark: number | null;
  /** The memory's erasure mark when the corpus's full read began. */
  erasures: number;
  view: CutView | null;
  /** Versions read when a full load passed the bound; the memory is not loaded again by this process. */
  tooLarge: number | null;
}

export const DEFAULT_CORPORA: CorporaOptions = { maxVersions: DEFAULT_SEARCH_CACHE_VERSIONS };

/**
 * The search corpora of the memories this process searched, least recently used
 * evicted first. Each search brings its memory's corpus up to date with one small
 * read of what changed since (record time is monotone per memory), so the corpus is
 * never behind the read models the query was gated on; refreshes of one memory run
 * one at a time. A corpus is a cache: losing it costs one full read. An erasure in the
 * memory (SPEC §5.2) drops its corpus: the next search reads it whole, without the
 * erased texts.
 */
export class SearchCorpora {
  private readonly corpora = new Map<string, CorpusEntry>();

  constructor(
    private readonly feed: SearchFeed & Partial<ErasureMark>,
    private readonly options: CorporaOptions = DEFAULT_CORPORA,
  ) {}

  async cut(memoryId: string, cut: Cut): Promise<CorpusCut> {
    let entry = this.corpora.get(memoryId);
    if (entry) this.corpora.delete(memoryId);
    else entry = { corpus: new MemoryCorpus(), refreshed: Promise.resolve(), mark: null, erasures: 0, view: null, tooLarge: null };
    this.corpora.set(memoryId, entry);
    const current = entry;
    const refreshed = entry.refreshed.then(async () => {
      // Checked in the refresh chain: a search queued behind the load that passed the bound must not read the memory again.
      if (current.tooLarge !== null) throw this.tooLarge(memoryId, current.tooLarge);
      // Marked before the read: a change committed during it moves the mark, so it is read next time.
      const mark = await this.feed.changeMark(memoryId);
      if (mark === current.mark) return;
      // Read before the rows too: an erasure committed during the read is found next time.
      const erasures = (await this.feed.erasureMark?.(memoryId)) ?? 0;
      if (current.corpus.watermark !== null && erasures !== current.erasures) {
        current.corpus = new MemoryCorpus();
        current.view = null;
        this.options.onErasure?.(memoryId);
      }
      if (current.corpus.watermark !== null) {
        current.corpus.apply(await this.feed.itemsSince(memoryId, current.corpus.watermark));
        // An entity named again after an erasure: the facts naming it were rendered with its id.
        if (current.corpus.stale) {
          current.corpus = new MemoryCorpus();
          current.view = null;
        }
      }
      const { corpus } = current;
      if (corpus.watermark === null) {
        current.erasures = corpus.erasedAt = erasures;
        try {
          for await (const chunk of this.feed.allItems(memoryId)) {
            corpus.apply(chunk);
            // The heap holds a bounded number of versions: a larger memory stops here instead of exhausting it.
            if (corpus.size > this.options.maxVersions) {
              current.tooLarge = corpus.size;
              throw this.tooLarge(memoryId, corpus.size);
            }
          }
        } catch (error) {
          // A partly read memory must not be completed by deltas (they start at its watermark): start over next time.
          current.corpus = new MemoryCorpus();
          throw error;
        }
      }
      current.mark = mark;
    });
    entry.refreshed = refreshed.catch(() => undefined);
    await refreshed;
    this.evict(memoryId);
    // Searches of the memory "now" see the same items until it changes: they share the view.
    if (current.view === null || !current.view.shows(current.corpus, cut)) current.view = new CutView(current.corpus, cut);
    return new CorpusCut(current.view, memoryId, cut);
  }

  /** Drops the memory's corpus: the memory was deleted, and a memory of that id starts again empty. */
  forget(memoryId: string): void {
    this.corpora.delete(memoryId);
  }

  private tooLarge(memoryId: string, versions: number): HttpError {
    return new HttpError(
      'SEARCH_TOO_LARGE',
      `memory ${JSON.stringify(memoryId)} has at least ${versions.toLocaleString('en')} search item versions, more than this process keeps ` +
        `(SEARCH_CACHE_VERSIONS=${this.options.maxVersions}): raise SEARCH_CACHE_VERSIONS and the heap with it, or search through OpenSearch`,
    );
  }

  /** Versions held over all memories. */
  get versions(): number {
    let total = 0;
    for (const { corpus } of this.corpora.values()) total += corpus.size;
    return total;
  }

  private evict(keep: string): void {
    let total = this.versions;
    for (const [memoryId, { corpus }] of this.corpora) {
      if (total <= this.options.maxVersions) break;
      if (memoryId === keep) continue;
      this.corpora.delete(memoryId);
      total -= corpus.size;
    }
  }
}
