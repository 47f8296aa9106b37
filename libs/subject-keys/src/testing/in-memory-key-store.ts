import { randomBytes } from 'node:crypto';
import { keySetOfSeeds, newKeys } from '../content-keys';
import { latestPerSubject } from '../postgres-subject-key-store';
import { KEY_BYTES, type KeyRef, type KeySet, type NewKeySet, type SubjectErasure, type SubjectKeyStore, keyRefString } from '../subject-key-store';

interface StoredSet {
  seeds: Buffer;
  subjects: string[];
  guards: number[];
}

/**
 * Key sets in maps, for tests of code that seals and opens: the same contract as the PostgreSQL
 * store (a key set written with its batch, destroyed keys stay destroyed), without a database.
 * It joins no transaction: a key set is kept even when its append rolls back.
 */
export class InMemorySubjectKeyStore implements SubjectKeyStore {
  private readonly masterKey = randomBytes(KEY_BYTES);
  private readonly memories = new Map<string, { sets: Map<number, StoredSet>; tombstones: Map<string, number> }>();

  newKeys(count: number): { keys: Buffer; seeds: Buffer } {
    return newKeys(this.masterKey, count);
  }

  async writeKeySet(memoryId: string, keySet: NewKeySet): Promise<void> {
    this.memory(memoryId).sets.set(keySet.id, { seeds: Buffer.from(keySet.seeds), subjects: [...keySet.subjects], guards: [...keySet.guards] });
  }

  async keySets(memoryId: string, ids: readonly number[]): Promise<Map<number, KeySet>> {
    const { sets } = this.memory(memoryId);
    const found = new Map<number, KeySet>();
    for (const id of ids) {
      const set = sets.get(id);
      if (set) found.set(id, keySetOfSeeds(this.masterKey, set.seeds));
    }
    return found;
  }

  async legacyKeys(_memoryId: string, refs: readonly KeyRef[]): Promise<Map<string, Buffer | null>> {
    return new Map(refs.map((ref) => [keyRefString(ref), null]));
  }

  async destroy(memoryId: string, erasures: readonly SubjectErasure[]): Promise<void> {
    const { sets, tombstones } = this.memory(memoryId);
    for (const { subject, throughGeneration } of latestPerSubject(erasures)) {
      const key = `${subject.kind}:${subject.id}`;
      if ((tombstones.get(key) ?? -1) >= throughGeneration) continue;
      tombstones.set(key, throughGeneration);
      const wanted = new Set(Array.from({ length: throughGeneration + 1 }, (_, generation) => keyRefString({ ...subject, generation })));
      for (const set of sets.values()) {
        set.subjects.forEach((name, i) => {
          if (wanted.has(name)) set.seeds.fill(0, set.guards[i]! * KEY_BYTES, (set.guards[i]! + 1) * KEY_BYTES);
        });
      }
    }
  }

  confirmDestroyed(memoryId: string, erasures: readonly SubjectErasure[]): Promise<void> {
    return this.destroy(memoryId, erasures);
  }

  private memory(memoryId: string) {
    let memory = this.memories.get(memoryId);
    if (!memory) this.memories.set(memoryId, (memory = { sets: new Map(), tombstones: new Map() }));
    return memory;
  }
}
