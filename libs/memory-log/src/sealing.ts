import {
  type Content,
  type ContentSubject,
  type MemoryRecord,
  type MemoryState,
  type SplitRecord,
  type SubjectErased,
  splitBatch,
  withContent,
} from '@memotrace/domain';
import type { NewRecord, RecordContent } from '@memotrace/log-store';
import { type KeyRef, type SubjectKeyStore, keyRefString, openContent, sealContent } from '@memotrace/subject-keys';
import { toNewRecords } from './records';

/**
 * Personal content never reaches the log in the clear: it is sealed under its subjects' keys
 * (see `splitContent` in the domain), so destroying a key erases it in the log and in every
 * copy of the log's records (Kafka messages, backups of the log). A stored record keeps its
 * bare data, with the sealed parts beside it under `sealed`.
 */
export interface SealedParts {
  /** The record's content fields, sealed under `keys`. */
  content?: SealedBox;
  /**
   * The command's reason, sealed under the keys of everything its command wrote; inside `content`
   * (as REASON_FIELD) when those are the record's own keys, as for most one-record commands.
   */
  reason?: SealedBox;
}

export interface SealedBox {
  /** keyRefStrings, sorted: the order the data key is derived in. */
  keys: string[];
  box: string;
}

const REASON_FIELD = '$reason';

interface SealPlan {
  record: MemoryRecord;
  split: SplitRecord;
  /** Keys of the record's content, null when it has none. */
  contentNames: string[] | null;
  /** Keys of its command's reason, null when the reason stays in the clear (none, or nothing of the command is sealed). */
  reasonNames: string[] | null;
}

/**
 * Records of a decided batch, sealed; keys missing are created. `stateAfter` folds the log through the batch.
 * The records are sealed while the key store creates the keys (under the keys it proposes), and only the
 * records under a key that lost to another (a concurrent creator's, a tombstone) are sealed again.
 */
export async function sealBatch(
  keyStore: SubjectKeyStore,
  memoryId: string,
  records: readonly MemoryRecord[],
  stateAfter: MemoryState,
): Promise<NewRecord[]> {
  const refs = new Map<string, KeyRef>();
  // A command's records share one reasonSubjects array: name it once.
  const reasonNames = new Map<readonly ContentSubject[], string[]>();
  const plans: SealPlan[] = splitBatch(records, stateAfter).map(({ record, split, reasonSubjects }) => {
    const contentNames = split.content !== null ? namesOf(split.subjects, refs) : null;
    let names: string[] | null = null;
    if (record.meta.reason !== null && reasonSubjects.length > 0) {
      names = reasonNames.get(reasonSubjects) ?? null;
      if (names === null) reasonNames.set(reasonSubjects, (names = namesOf(reasonSubjects, refs)));
    }
    return { record, split, contentNames, reasonNames: names };
  });
  if (refs.size === 0) return toNewRecords(memoryId, records);

  const aad = Buffer.from(memoryId, 'utf8');
  let proposed: ReadonlyMap<string, Buffer> | undefined;
  let early: (MemoryRecord | undefined)[] | undefined;
  const keys = await keyStore.keys(memoryId, [...refs.values()], {
    create: true,
    onProposed: (material) => {
      proposed = material;
      try {
        early = plans.map((plan) => (everyName(plan, (name) => material.has(name)) ? sealRecord(plan, memoryId, aad, material) : undefined));
      } catch {
        // Sealed below under the answer, which reports the problem.
        early = undefined;
      }
    },
  });
  const sealedRecords = plans.map((plan, i) => {
    const sealed = early?.[i];
    if (sealed !== undefined && everyName(plan, (name) => keys.get(name) === proposed!.get(name))) return sealed;
    return sealRecord(plan, memoryId, aad, keys);
  });
  return toNewRecords(memoryId, sealedRecords);
}

function everyName(plan: SealPlan, test: (name: string) => boolean): boolean {
  return (plan.contentNames ?? []).every(test) && (plan.reasonNames ?? []).every(test);
}

function sealRecord(plan: SealPlan, memoryId: string, aad: Buffer, keys: ReadonlyMap<string, Buffer | null>): MemoryRecord {
  const { record, split, contentNames, reasonNames: names } = plan;
  const parts: SealedParts = {};
  const reasonInside = names !== null && contentNames !== null && sameNames(contentNames, names);
  if (contentNames !== null) {
    const value = reasonInside ? { ...split.content, [REASON_FIELD]: record.meta.reason } : split.content;
    parts.content = sealBox(contentNames, value, memoryId, aad, keys);
  }
  if (names !== null && !reasonInside) parts.reason = sealBox(names, record.meta.reason, memoryId, aad, keys);
  if (parts.content === undefined && parts.reason === undefined) return record;
  const data = parts.content !== undefined ? split.bare : record.data;
  return {
    ...record,
    data: { ...data, sealed: parts },
    meta: { ...record.meta, reason: names !== null ? null : record.meta.reason },
  } as unknown as MemoryRecord;
}

function sealBox(names: string[], value: unknown, memoryId: string, aad: Buffer, keys: ReadonlyMap<string, Buffer | null>): SealedBox {
  const material: Buffer[] = [];
  for (const name of names) {
    const key = keys.get(name);
    // A destroyed generation is never sealed under again: refuse rather than write content in the clear.
    if (!key) throw new Error(`subject key ${name} of memory ${memoryId} is destroyed or missing: the batch is not written`);
    material.push(key);
  }
  return { keys: names, box: sealContent(material, memoryId, value, aad) };
}

/** The subjects' keyRefStrings, sorted (the order the data key is derived in); each ref is added to `refs`. */
function namesOf(subjects: readonly ContentSubject[], refs: Map<string, KeyRef>): string[] {
  const names: string[] = [];
  for (const subject of subjects) {
    const ref: KeyRef = { kind: subject.kind, id: subject.id, generation: subject.generation };
    const name = keyRefString(ref);
    if (!refs.has(name)) refs.set(name, ref);
    names.push(name);
  }
  return names.length > 1 ? names.sort() : names;
}

/** Both lists hold distinct names, sorted: equal lists are the same key set. */
function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Stored records with their content opened: content whose keys are destroyed reads as emptied
 * (null texts, empty lists), a reason as null. Keys are fetched once per call and memory.
 */
export async function openRecords<T extends RecordContent>(
  keyStore: SubjectKeyStore,
  records: readonly T[],
  memoryIdOf: (record: T) => string | null,
): Promise<T[]> {
  const wanted = new Map<string, Map<string, KeyRef>>();
  for (const record of records) {
    if (record.type === 'SubjectErased') await destroyErased(keyStore, record, memoryIdOf(record));
    const parts = sealedPartsOf(record);
    const memoryId = parts && memoryIdOf(record);
    if (!parts || memoryId === null || memoryId === undefined) continue;
    let refs = wanted.get(memoryId);
    if (!refs) wanted.set(memoryId, (refs = new Map()));
    for (const name of parts.content?.keys ?? []) if (!refs.has(name)) refs.set(name, parseRef(name));
    for (const name of parts.reason?.keys ?? []) if (!refs.has(name)) refs.set(name, parseRef(name));
  }
  if (wanted.size === 0) return records as T[];
  const memories = new Map<string, { keys: Map<string, Buffer | null>; aad: Buffer }>();
  for (const [memoryId, refs] of wanted) {
    memories.set(memoryId, { keys: await keyStore.keys(memoryId, [...refs.values()], { create: false }), aad: Buffer.from(memoryId, 'utf8') });
  }
  return records.map((record) => {
    const parts = sealedPartsOf(record);
    const memoryId = parts && memoryIdOf(record);
    if (!parts || memoryId === null || memoryId === undefined) return record;
    const memory = memories.get(memoryId)!;
    const { sealed: _, ...bare } = record.data as Record<string, unknown>;
    const opened = parts.content ? (openBox(memory, memoryId, parts.content) as Content | null) : undefined;
    let reason: unknown = record.metadata.reason;
    let content = opened;
    if (opened && REASON_FIELD in opened) {
      const { [REASON_FIELD]: inside, ...fields } = opened;
      reason = inside;
      content = fields;
    } else if (parts.reason) reason = openBox(memory, memoryId, parts.reason);
    const data = content === undefined ? bare : withContent(record.type as MemoryRecord['type'], bare as MemoryRecord['data'], content);
    return { ...record, data, metadata: { ...record.metadata, reason: typeof reason === 'string' ? reason : null } };
  });
}

/**
 * An erasure read from the log destroys its keys again: the writer destroys them right after
 * appending, and a crash in between (or another process's cache) must not leave content readable.
 */
async function destroyErased(keyStore: SubjectKeyStore, record: RecordContent, memoryId: string | null): Promise<void> {
  const { subject, generation } = record.data as SubjectErased['data'];
  if (memoryId !== null) await keyStore.destroy(memoryId, subject, generation);
}

function openBox(memory: { keys: ReadonlyMap<string, Buffer | null>; aad: Buffer }, memoryId: string, box: SealedBox): unknown {
  const material: Buffer[] = [];
  for (const name of box.keys) {
    const key = memory.keys.get(name);
    if (!key) return null;
    material.push(key);
  }
  return openContent(material, memoryId, box.box, memory.aad);
}

function sealedPartsOf(record: RecordContent): SealedParts | null {
  const data = record.data as { sealed?: SealedParts } | null;
  return data !== null && typeof data === 'object' && data.sealed !== undefined ? data.sealed : null;
}

function parseRef(name: string): KeyRef {
  const first = name.indexOf(':');
  const second = name.indexOf(':', first + 1);
  return { kind: name.slice(0, first) as KeyRef['kind'], generation: Number(name.slice(first + 1, second)), id: name.slice(second + 1) };
}
