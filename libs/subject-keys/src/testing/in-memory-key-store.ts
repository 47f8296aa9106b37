import { randomBytes } from 'node:crypto';
import { KEY_BYTES, type KeyRef, type SubjectKeyStore, type SubjectKind, keyRefString } from '../subject-key-store';

/**
 * Subject keys in a map, for unit tests of code that seals and opens: the same contract as the
 * PostgreSQL store (keys created on demand, destroyed generations stay destroyed), without a database.
 */
export class InMemorySubjectKeyStore implements SubjectKeyStore {
  private readonly memories = new Map<string, Map<string, Buffer | null>>();

  async keys(memoryId: string, refs: readonly KeyRef[], options: { create: boolean }): Promise<Map<string, Buffer | null>> {
    let stored = this.memories.get(memoryId);
    if (!stored) this.memories.set(memoryId, (stored = new Map()));
    const found = new Map<string, Buffer | null>();
    for (const ref of refs) {
      const name = keyRefString(ref);
      if (!stored.has(name) && options.create && !this.tombstoned(stored, ref)) stored.set(name, randomBytes(KEY_BYTES));
      found.set(name, stored.get(name) ?? null);
    }
    return found;
  }

  async destroy(memoryId: string, subject: { kind: SubjectKind; id: string }, throughGeneration: number): Promise<void> {
    let stored = this.memories.get(memoryId);
    if (!stored) this.memories.set(memoryId, (stored = new Map()));
    for (let generation = 0; generation <= throughGeneration; generation++) stored.set(keyRefString({ ...subject, generation }), null);
  }

  async dropMemory(memoryId: string): Promise<void> {
    this.memories.delete(memoryId);
  }

  private tombstoned(stored: Map<string, Buffer | null>, ref: KeyRef): boolean {
    return stored.get(keyRefString(ref)) === null;
  }
}
