import type pg from 'pg';

/** Whose content a key protects: an erasure subject. */
export type SubjectKind = 'entity' | 'fact' | 'mention' | 'doc';

export const SUBJECT_KINDS: readonly SubjectKind[] = ['entity', 'fact', 'mention', 'doc'];

/** A subject's erasure generation: content of a subject written after its n-th erasure belongs to generation n. */
export interface KeyRef {
  kind: SubjectKind;
  id: string;
  generation: number;
}

/** Bytes of a content key, of a key seed and of the master key (AES-256). */
export const KEY_BYTES = 32;

/** Stable string form `${kind}:${generation}:${id}`; the id goes last because ids may contain ':'. */
export function keyRefString(ref: KeyRef): string {
  return `${ref.kind}:${ref.generation}:${ref.id}`;
}

/** Throws on a ref the key table cannot hold (unknown kind, generation not a non-negative int4). */
export function checkKeyRef(ref: KeyRef): void {
  if (!SUBJECT_KINDS.includes(ref.kind)) throw new TypeError(`unknown subject kind ${JSON.stringify(ref.kind)}`);
  checkGeneration(ref.generation);
}

export function checkGeneration(generation: number): void {
  if (!Number.isInteger(generation) || generation < 0 || generation > 0x7fffffff) {
    throw new RangeError(`a key generation is an integer from 0 to 2^31-1, got ${generation}`);
  }
}

/** An erasure of a subject: its content of generations 0 to `throughGeneration` goes. */
export interface SubjectErasure {
  subject: { kind: SubjectKind; id: string };
  throughGeneration: number;
}

/**
 * The keys of one appended batch's sealed boxes, as stored: one key per box (each box is sealed once
 * under its own key), each listed under the subjects whose erasure destroys it.
 */
export interface NewKeySet {
  /** The key set's id in its memory: the stream revision of the batch's first record. */
  id: number;
  /** KEY_BYTES per box: the stored seeds its keys are made from under the master key. */
  seeds: Buffer;
  /** keyRefStrings, each guarding the box at the same index of `guards`: a box has one entry per subject. */
  subjects: string[];
  guards: number[];
}

/** The keys of one key set, by slot. */
export interface KeySet {
  readonly size: number;
  /** The slot's key (a view: callers must not change it); null when destroyed or past the end. */
  key(slot: number): Buffer | null;
}

/** Statements run in an append's transaction (see the log store's `alongside`). */
export type Transaction = Pick<pg.ClientBase, 'query'>;

/**
 * Keys for crypto-shredding: each sealed box of content has its own key, listed under the subjects
 * (with their erasure generations) the content belongs to; erasing a subject destroys every key
 * listed under it, so that content is unreadable wherever the log's records were copied. Keys are
 * stored made from seeds under a master key kept outside the database.
 */
export interface SubjectKeyStore {
  /** `count` fresh keys (KEY_BYTES each, in one buffer) and the seeds a key set stores for them. */
  newKeys(count: number): { keys: Buffer; seeds: Buffer };
  /** Stores a batch's key set in the transaction appending the batch, so both commit or neither. */
  writeKeySet(memoryId: string, keySet: NewKeySet, tx: Transaction): Promise<void>;
  /** The key sets found of these ids; a destroyed key reads as null. */
  keySets(memoryId: string, ids: readonly number[]): Promise<Map<number, KeySet>>;
  /**
   * Keys of the first stored format (one key per subject and generation), which the log's earliest
   * sealed records name; null when destroyed or missing. Never created any more.
   */
  legacyKeys(memoryId: string, refs: readonly KeyRef[]): Promise<Map<string, Buffer | null>>;
  /**
   * Destroys the keys listed under the subjects' generations up to each erasure's, and leaves a
   * tombstone, which makes a repeat a read. Idempotent. The writer of the erasures calls it once they
   * are in the log.
   */
  destroy(memoryId: string, erasures: readonly SubjectErasure[]): Promise<void>;
  /**
   * The same, for a reader meeting erasures in the log (a crash between an append and its destroy
   * must not leave content readable); it may skip the erasures it knows to be done.
   */
  confirmDestroyed(memoryId: string, erasures: readonly SubjectErasure[]): Promise<void>;
}
