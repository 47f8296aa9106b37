import {
  type Content,
  type ContentSubject,
  type MemoryRecord,
  type MemoryState,
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

/** Records of a decided batch, sealed; keys missing are created. `stateAfter` folds the log through the batch. */
export async function sealBatch(
  keyStore: SubjectKeyStore,
  memoryId: string,
  records: readonly MemoryRecord[],
  stateAfter: MemoryState,
): Promise<NewRecord[]> {
  const split = splitBatch(records, stateAfter);
  const refs = new Map<string, KeyRef>();
  for (const { split: s, reasonSubjects, record } of split) {
    for (const subject of s.subjects) refs.set(keyRefString(refOf(subject)), refOf(subject));
    if (record.meta.reason !== null) for (const subject of reasonSubjects) refs.set(keyRefString(refOf(subject)), refOf(subject));
  }
  const keys = refs.size > 0 ? await keyStore.keys(memoryId, [...refs.values()], { create: true }) : new Map<string, Buffer | null>();
  const seal = (subjects: readonly ContentSubject[], value: unknown): SealedBox => {
    const names = subjects.map((subject) => keyRefString(refOf(subject))).sort();
    const material = names.map((name) => {
      const key = keys.get(name);
      // A destroyed generation is never sealed under again: refuse rather than write content in the clear.
      if (!key) throw new Error(`subject key ${name} of memory ${memoryId} is destroyed or missing: the batch is not written`);
      return key;
    });
    return { keys: names, box: sealContent(material, memoryId, value) };
  };
  const sealedRecords = split.map(({ record, split: s, reasonSubjects }) => {
    const parts: SealedParts = {};
    const sealReason = record.meta.reason !== null && reasonSubjects.length > 0;
    const reasonInside = sealReason && s.content !== null && sameSubjects(s.subjects, reasonSubjects);
    if (s.content !== null) parts.content = seal(s.subjects, reasonInside ? { ...s.content, [REASON_FIELD]: record.meta.reason } : s.content);
    if (sealReason && !reasonInside) parts.reason = seal(reasonSubjects, record.meta.reason);
    if (parts.content === undefined && parts.reason === undefined) return record;
    const data = parts.content !== undefined ? s.bare : record.data;
    return {
      ...record,
      data: { ...data, sealed: parts },
      meta: { ...record.meta, reason: sealReason ? null : record.meta.reason },
    } as unknown as MemoryRecord;
  });
  return toNewRecords(memoryId, sealedRecords);
}

function sameSubjects(a: readonly ContentSubject[], b: readonly ContentSubject[]): boolean {
  if (a.length !== b.length) return false;
  const names = new Set(a.map((subject) => keyRefString(refOf(subject))));
  return b.every((subject) => names.has(keyRefString(refOf(subject))));
}

function refOf(subject: ContentSubject): KeyRef {
  return { kind: subject.kind, id: subject.id, generation: subject.generation };
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
    for (const box of [parts.content, parts.reason]) for (const name of box?.keys ?? []) refs.set(name, parseRef(name));
  }
  if (wanted.size === 0) return records as T[];
  const keys = new Map<string, Map<string, Buffer | null>>();
  for (const [memoryId, refs] of wanted) keys.set(memoryId, await keyStore.keys(memoryId, [...refs.values()], { create: false }));
  return records.map((record) => {
    const parts = sealedPartsOf(record);
    const memoryId = parts && memoryIdOf(record);
    if (!parts || memoryId === null || memoryId === undefined) return record;
    const memoryKeys = keys.get(memoryId)!;
    const { sealed: _, ...bare } = record.data as Record<string, unknown>;
    const opened = parts.content ? (openBox(memoryKeys, memoryId, parts.content) as Content | null) : undefined;
    let reason: unknown = record.metadata.reason;
    let content = opened;
    if (opened && REASON_FIELD in opened) {
      const { [REASON_FIELD]: inside, ...fields } = opened;
      reason = inside;
      content = fields;
    } else if (parts.reason) reason = openBox(memoryKeys, memoryId, parts.reason);
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

function openBox(keys: ReadonlyMap<string, Buffer | null>, memoryId: string, box: SealedBox): unknown {
  const material: Buffer[] = [];
  for (const name of box.keys) {
    const key = keys.get(name);
    if (!key) return null;
    material.push(key);
  }
  return openContent(material, memoryId, box.box);
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
