import type { Projection, ProjectedRecord } from '@memotrace/projection';
import type { PoolClient } from 'pg';
import type { EmbeddingProvider } from './embeddings/port';
import { factText, mentionText } from '@memotrace/domain';
import type { IndexedText } from './indexed-text';
import { deleteErasedRows, deleteOrphanVectors, erasedItems, erasedLater } from './erased-items';
import { SEARCH_INDEX_PROJECTION } from './projection-name';
import { textHash } from './text-hash';
import { storeVectors, storedHashes } from './vector-store';

export type { IndexedText } from './indexed-text';

/**
 * The search projection: embeds every searchable text of the log (mentions, event
 * summaries, episode titles, facts as sentences) and stores the vectors, in the
 * projector's transaction with its checkpoint. Texts already stored are not
 * embedded again. Run it in a projector of its own: embedding is slow, and the read
 * models must not wait for it. A fact is rendered with its entities' names, as the
 * search renders it: from the entities its batch registers, else as the read models
 * know them when the batch runs (by id if not yet known, and the fact is then found by
 * BM25 only).
 *
 * Erasure (SPEC §5.2): an erased item's rows go, and with them every vector no other row's text
 * has (a vector is derived from its text); the provider's cache forgets those texts. An item
 * whose content reads null (its record read after its key was destroyed) is never indexed, nor
 * is a text that an erasure later in the same batch removes.
 */
export function searchIndexProjection(provider: EmbeddingProvider): Projection & Required<Pick<Projection, 'prepare'>> {
  // What `prepare` found for a batch, by its first record: `handle` of the same batch stores it as is.
  const prepared = new WeakMap<ProjectedRecord, { count: number; embedded: Promise<Embedded> }>();
  return {
    name: SEARCH_INDEX_PROJECTION,
    version: 1,
    // Entities for their names: a fact's entities often come in its own batch, before the read models have them.
    handles: ['opened', 'mention', 'erased', 'entity'],
    // Embeds before the projector's transaction, so a long embedding never holds back the log's safe head.
    async prepare(records, db) {
      const embedded = searchableTexts(records, db).then((texts) => embedFresh(provider, texts, db));
      prepared.set(records[0]!, { count: records.length, embedded });
      await embedded;
    },
    async handle(records, tx) {
      const ready = prepared.get(records[0]!);
      const { texts, hashes, fresh, vectors } =
        ready?.count === records.length ? await ready.embedded : await embedFresh(provider, await searchableTexts(records, tx), tx);
      // Erased rows first: an item named again after its erasure gets its row back, with the same text too.
      const erased = await deleteErasedRows(tx, erasedItems(records));
      await indexTexts(tx, provider, { texts, hashes, fresh, vectors });
      // Then the vectors no row has: a text the batch wrote again keeps its vector.
      await deleteOrphanVectors(tx, erased);
      if (erased.length > 0) provider.forget?.(erased);
    },
  };
}

async function indexTexts(tx: PoolClient, provider: EmbeddingProvider, { texts, hashes, fresh, vectors }: Embedded): Promise<void> {
  if (texts.length === 0) return;
  for (let i = 0; i < fresh.length; i += 200) {
    await storeVectors(
      tx,
      provider.model,
      fresh.slice(i, i + 200).map(([hash], j) => ({ hash, vector: vectors[i + j]! })),
    );
  }
  await tx.query(
    `INSERT INTO si_items (memory_id, kind, item_id, text_hash, position)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[]) ON CONFLICT DO NOTHING`,
    [texts.map((t) => t.memoryId), texts.map((t) => t.kind), texts.map((t) => t.itemId), hashes, texts.map((t) => t.position)],
  );
}

interface Embedded {
  texts: IndexedText[];
  hashes: string[];
  /** The texts not stored yet, by hash, and their vectors. */
  fresh: [string, string][];
  vectors: Float32Array[];
}

/** The texts not stored yet for the provider's model, with their vectors. */
async function embedFresh(provider: EmbeddingProvider, texts: IndexedText[], db: Pick<PoolClient, 'query'>): Promise<Embedded> {
  const hashes = texts.map((t) => textHash(t.text));
  const stored = await storedHashes(db, provider.model, hashes);
  const fresh = [...new Map(texts.map((t, i) => [hashes[i]!, t.text] as const)).entries()].filter(([hash]) => !stored.has(hash));
  const vectors = await provider.embed(fresh.map(([, text]) => text));
  return { texts, hashes, fresh, vectors };
}

/**
 * The texts a batch makes searchable, as the search renders them: not those whose content reads
 * null (erased), nor those an erasure later in the batch removes.
 */
export async function searchableTexts(records: readonly ProjectedRecord[], tx: Pick<PoolClient, 'query'>): Promise<IndexedText[]> {
  const names = await entityNames(records, tx);
  const texts: IndexedText[] = [];
  for (const { memoryId, position, changes } of records) {
    for (const change of changes) {
      const at = { memoryId, position };
      if (change.change === 'mention') {
        const { text, speaker } = change;
        if (text !== null) texts.push({ ...at, kind: 'mention', itemId: change.mentionId, text: mentionText({ speaker, text }) });
      } else if (change.change !== 'opened') continue;
      else if (change.kind === 'event') {
        const { summary } = change.content;
        if (summary !== null) texts.push({ ...at, kind: 'event', itemId: change.id, text: summary });
      } else if (change.kind === 'episode') texts.push({ ...at, kind: 'episode', itemId: change.id, text: change.content.title });
      else if (change.kind === 'topic') continue;
      else {
        const { src, rel, dst } = change.content;
        // An inline callback: a named closure per record costs more under tsx (keepNames).
        if (dst !== null)
          texts.push({
            ...at,
            kind: 'fact',
            itemId: change.id,
            text: factText({ src, rel, dst }, (id) => names.get(nameKey(memoryId, id)) ?? id),
          });
      }
    }
  }
  const erased = erasedLater(erasedItems(records));
  return texts.filter((t) => t.text.trim() !== '' && !erased(t));
}

/** The names of the entities the batch's facts name: those the batch registers, then those the read models know. */
async function entityNames(records: readonly ProjectedRecord[], tx: Pick<PoolClient, 'query'>): Promise<Map<string, string>> {
  const registered = new Map<string, string>();
  for (const { memoryId, changes } of records) {
    for (const change of changes) {
      // An entity is registered again only after its erasure: the latest registration names it (an erased name reads null).
      if (change.change === 'entity' && change.name !== null) registered.set(nameKey(memoryId, change.entityId), change.name);
    }
  }
  const memories: string[] = [];
  const ids: string[] = [];
  const unnamed = (memoryId: string, id: string) => {
    if (registered.has(nameKey(memoryId, id))) return;
    memories.push(memoryId);
    ids.push(id);
  };
  for (const { memoryId, changes } of records) {
    for (const change of changes) {
      if (change.change !== 'opened' || change.kind !== 'fact') continue;
      unnamed(memoryId, change.content.src);
      if (typeof change.content.dst === 'string') unnamed(memoryId, change.content.dst);
    }
  }
  if (ids.length === 0) return registered;
  // The read-model table may be absent (search index alone in a test database): names stay ids.
  const present = await tx.query<{ present: boolean }>(`SELECT to_regclass('rm_entities') IS NOT NULL AS present`);
  if (!present.rows[0]?.present) return registered;
  const { rows } = await tx.query<{ memory_id: string; entity_id: string; name: string | null }>(
    'SELECT e.memory_id, e.entity_id, e.name FROM rm_entities e ' +
      'JOIN unnest($1::text[], $2::text[]) AS u(m, id) ON e.memory_id = u.m AND e.entity_id = u.id',
    [memories, ids],
  );
  // An erased name is none: the fact shows the id.
  for (const r of rows) if (r.name !== null) registered.set(nameKey(r.memory_id, r.entity_id), r.name);
  return registered;
}

/** An entity's key in `entityNames`: ids are unique within a memory only. */
function nameKey(memoryId: string, entityId: string): string {
  return `${memoryId}\u0000${entityId}`;
}
