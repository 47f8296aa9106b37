import {
  type Content,
  type ContentSubject,
  type MemoryRecord,
  type LogRecord,
  type MemoryState,
  erasureOf,
  splitBatch,
  withContent,
} from '@memotrace/domain';
import type { NewRecord, RecordContent } from '@memotrace/log-store';
import {
  type KeyRef,
  type KeySet,
  KEY_BYTES,
  type NewKeySet,
  type SubjectErasure,
  type SubjectKeyStore,
  keyRefString,
  openBox,
  openLegacyContent,
  sealBox,
} from '@memotrace/subject-keys';
import { toNewRecords } from './records';

/**
 * Personal content never reaches the log in the clear: it is sealed in boxes (see `splitContent` in
 * the domain), each under a key of its own that is listed under the box's subjects, so erasing a
 * subject destroys the keys of its content in the log and in every copy of the log's records
 * (Kafka messages, backups of the log). A stored record keeps its bare data, with its boxes beside
 * it under `sealed`; a batch's keys are one key set, written in the append's transaction.
 */
export interface SealedParts {
  /** The key set holding the boxes' keys: the stream revision of the batch's first record. */
  set: number;
  /** The record's content fields. */
  content?: SealedBox;
  /**
   * The command's reason, listed under the subjects of everything its command wrote; inside
   * `content` (as REASON_FIELD) when those are the record's own subjects, as for one-record commands.
   */
  reason?: SealedBox;
}

export interface SealedBox {
  /** The box's key in the key set. */
  slot: number;
  box: string;
}

/** The first stored format: a box named the subject keys its data key was derived from, sorted. */
interface LegacySealedParts {
  content?: { keys: string[]; box: string };
  reason?: { keys: string[]; box: string };
}

const REASON_FIELD = '$reason';

export interface SealedBatch {
  records: NewRecord[];
  /** The keys of the batch's boxes, to write in the append's transaction (`alongside`); null when nothing is sealed. */
  keySet: NewKeySet | null;
}

/** How the command side turns a decided batch into what it appends (see sealBatch). */
export type Sealer = (memoryId: string, records: readonly MemoryRecord[], stateAfter: MemoryState, firstRevision: number) => SealedBatch;

interface BoxPlan {
  slot: number;
  value: unknown;
}

/**
 * Records of a decided batch, sealed under fresh keys. `stateAfter` folds the log through the batch;
 * `firstRevision` is the stream revision the batch starts at (its key set's id): the append must
 * expect exactly the revision before it.
 */
export function sealBatch(
  keyStore: Pick<SubjectKeyStore, 'newKeys'>,
  memoryId: string,
  records: readonly MemoryRecord[],
  stateAfter: MemoryState,
  firstRevision: number,
): SealedBatch {
  const subjects: string[] = [];
  const guards: number[] = [];
  // A command's records share one reasonSubjects array: name it once.
  const reasonNames = new Map<readonly ContentSubject[], string[]>();
  let slots = 0;
  const guard = (names: readonly string[]): number => {
    const slot = slots++;
    for (const name of names) {
      subjects.push(name);
      guards.push(slot);
    }
    return slot;
  };
  const plans = splitBatch(records, stateAfter).map(({ record, split, reasonSubjects }) => {
    const reason = record.meta.reason;
    const contentNames = split.content !== null ? split.subjects.map(keyRefString) : null;
    let names: string[] | null = null;
    if (reason !== null && reasonSubjects.length > 0) {
      names = reasonSubjects === split.subjects ? contentNames : (reasonNames.get(reasonSubjects) ?? null);
      if (names === null) reasonNames.set(reasonSubjects, (names = reasonSubjects.map(keyRefString)));
    }
    const reasonInside = names !== null && contentNames !== null && sameNames(contentNames, names);
    // The split's content is its own object: the reason joins it in place.
    if (reasonInside) split.content![REASON_FIELD] = reason;
    const content: BoxPlan | null = contentNames !== null ? { slot: guard(contentNames), value: split.content } : null;
    const reasonBox: BoxPlan | null = names !== null && !reasonInside ? { slot: guard(names), value: reason } : null;
    return { bare: split.bare, content, reason: reasonBox, reasonSealed: names !== null };
  });
  const stored = toNewRecords(memoryId, records);
  if (slots === 0) return { records: stored, keySet: null };

  const { keys, seeds } = keyStore.newKeys(slots);
  const aad = Buffer.from(memoryId, 'utf8');
  const seal = (plan: BoxPlan): SealedBox => ({
    slot: plan.slot,
    box: sealBox(keys.subarray(plan.slot * KEY_BYTES, (plan.slot + 1) * KEY_BYTES), aad, plan.value),
  });
  // toNewRecords made each stored record's data reference and metadata object anew: they change in place.
  plans.forEach(({ bare, content, reason, reasonSealed }, i) => {
    if (content === null && reason === null) return;
    const record = stored[i]!;
    const parts: SealedParts = { set: firstRevision };
    if (content !== null) parts.content = seal(content);
    if (reason !== null) parts.reason = seal(reason);
    record.data = { ...(content !== null ? bare : (record.data as object)), sealed: parts };
    if (reasonSealed) record.metadata.reason = null;
  });
  keys.fill(0);
  return { records: stored, keySet: { id: firstRevision, seeds, subjects, guards } };
}

/** Both lists hold distinct names: equal as sets is the same subjects. */
function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  return a.every((name) => b.includes(name));
}

/** The erasures among records (erasures are never sealed: stored and domain records read alike), as the key store destroys them. */
export function erasuresOf(records: readonly Pick<RecordContent, 'type' | 'data'>[]): SubjectErasure[] {
  return records.flatMap((record) => {
    const erasure = erasureOf(record as LogRecord);
    return erasure === null ? [] : [{ subject: erasure.subject, throughGeneration: erasure.generation }];
  });
}

interface MemoryKeys {
  aad: Buffer;
  sets: Map<number, KeySet>;
  legacy: Map<string, Buffer | null>;
}

/**
 * Stored records with their content opened: content whose keys are destroyed reads as emptied
 * (null texts, empty lists), a reason as null. The erasures among the records are confirmed done
 * first (see SubjectKeyStore.confirmDestroyed); keys are fetched once per call and memory.
 */
export async function openRecords<T extends RecordContent>(
  keyStore: SubjectKeyStore,
  records: readonly T[],
  memoryIdOf: (record: T) => string | null,
): Promise<T[]> {
  const wanted = new Map<string, { erasures: SubjectErasure[]; sets: Set<number>; legacy: Map<string, KeyRef> }>();
  const of = (memoryId: string) => {
    let memory = wanted.get(memoryId);
    if (!memory) wanted.set(memoryId, (memory = { erasures: [], sets: new Set(), legacy: new Map() }));
    return memory;
  };
  let sealed = false;
  for (const record of records) {
    const erasure = erasureOf(record as LogRecord);
    const parts = sealedPartsOf(record);
    if (erasure === null && !parts) continue;
    const memoryId = memoryIdOf(record);
    if (memoryId === null) continue;
    const memory = of(memoryId);
    if (erasure !== null) memory.erasures.push({ subject: erasure.subject, throughGeneration: erasure.generation });
    if (!parts) continue;
    sealed = true;
    if (isKeySetParts(parts)) memory.sets.add(parts.set);
    else for (const name of [...(parts.content?.keys ?? []), ...(parts.reason?.keys ?? [])]) memory.legacy.set(name, parseRef(name));
  }
  for (const [memoryId, { erasures }] of wanted) if (erasures.length > 0) await keyStore.confirmDestroyed(memoryId, erasures);
  if (!sealed) return records as T[];

  const memories = new Map<string, MemoryKeys>();
  for (const [memoryId, { sets, legacy }] of wanted) {
    memories.set(memoryId, {
      aad: Buffer.from(memoryId, 'utf8'),
      sets: sets.size > 0 ? await keyStore.keySets(memoryId, [...sets]) : new Map(),
      legacy: legacy.size > 0 ? await keyStore.legacyKeys(memoryId, [...legacy.values()]) : new Map(),
    });
  }
  return records.map((record) => {
    const parts = sealedPartsOf(record);
    const memoryId = parts && memoryIdOf(record);
    if (!parts || memoryId === null || memoryId === undefined) return record;
    const memory = memories.get(memoryId)!;
    const open = isKeySetParts(parts)
      ? (box: SealedBox) => openKeySetBox(memory, parts.set, box)
      : (box: { keys: string[]; box: string }) => openLegacyBox(memory, box);
    const { sealed: _, ...bare } = record.data as Record<string, unknown>;
    const opened = parts.content ? (open(parts.content as never) as Content | null) : undefined;
    let reason: unknown = record.metadata.reason;
    let content = opened;
    if (opened && REASON_FIELD in opened) {
      const { [REASON_FIELD]: inside, ...fields } = opened;
      reason = inside;
      content = fields;
    } else if (parts.reason) reason = open(parts.reason as never);
    const data = content === undefined ? bare : withContent(record.type as MemoryRecord['type'], bare as MemoryRecord['data'], content);
    return { ...record, data, metadata: { ...record.metadata, reason: typeof reason === 'string' ? reason : null } };
  });
}

function openKeySetBox(memory: MemoryKeys, set: number, box: SealedBox): unknown {
  const key = memory.sets.get(set)?.key(box.slot) ?? null;
  return key === null ? null : openBox(key, memory.aad, box.box);
}

function openLegacyBox(memory: MemoryKeys, box: { keys: string[]; box: string }): unknown {
  const material: Buffer[] = [];
  for (const name of box.keys) {
    const key = memory.legacy.get(name);
    if (!key) return null;
    material.push(key);
  }
  return openLegacyContent(material, memory.aad, box.box);
}

function sealedPartsOf(record: RecordContent): SealedParts | LegacySealedParts | null {
  const data = record.data as { sealed?: SealedParts | LegacySealedParts } | null;
  return data !== null && typeof data === 'object' && data.sealed !== undefined ? data.sealed : null;
}

function isKeySetParts(parts: SealedParts | LegacySealedParts): parts is SealedParts {
  return 'set' in parts;
}

function parseRef(name: string): KeyRef {
  const first = name.indexOf(':');
  const second = name.indexOf(':', first + 1);
  return { kind: name.slice(0, first) as KeyRef['kind'], generation: Number(name.slice(first + 1, second)), id: name.slice(second + 1) };
}
