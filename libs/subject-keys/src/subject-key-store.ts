/** Whose content a key protects: an erasure subject. */
export type SubjectKind = 'entity' | 'fact' | 'mention' | 'doc';

export const SUBJECT_KINDS: readonly SubjectKind[] = ['entity', 'fact', 'mention', 'doc'];

/** One key: a subject's generation. A subject's content written after an erasure of generation g is sealed under generation g+1. */
export interface KeyRef {
  kind: SubjectKind;
  id: string;
  generation: number;
}

/** Bytes of a subject key, of the master key and of a content data key (AES-256). */
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

export interface KeysOptions {
  create: boolean;
  /**
   * With `create`, a store that waits on a server may call this once, synchronously while it waits,
   * with the material it expects to answer (keys it knows, keys it is about to create), so the caller
   * can start work under them. Only the answer counts: a proposed key loses to a concurrent creator's
   * or to a tombstone, and the answer then holds another buffer or null. Must not throw.
   */
  onProposed?: (proposed: ReadonlyMap<string, Buffer>) => void;
}

/**
 * Per-subject keys for crypto-shredding: content is sealed under its subjects' keys, so
 * destroying a key erases that content wherever it was copied.
 */
export interface SubjectKeyStore {
  /** Key material (32 bytes) per keyRefString; created (random) when `create` and missing; null when destroyed, or missing without `create`. */
  keys(memoryId: string, refs: readonly KeyRef[], options: KeysOptions): Promise<Map<string, Buffer | null>>;
  /**
   * Destroys the subject's keys of generations <= throughGeneration, and leaves a tombstone for
   * throughGeneration so it is never created again. Idempotent.
   */
  destroy(memoryId: string, subject: { kind: SubjectKind; id: string }, throughGeneration: number): Promise<void>;
  /** Removes every key (and tombstone) of the memory. */
  dropMemory(memoryId: string): Promise<void>;
}
