import { randomBytes } from 'node:crypto';
import { parseCommandsRequest } from '@memotrace/contracts';
import { type Command, type MemoryRecord, type MemoryState, decideBatch, initialState } from '@memotrace/domain';
import type { RecordContent } from '@memotrace/log-store';
import { type KeyRef, type KeysOptions, type SubjectKeyStore, type SubjectKind, keyRefString } from '@memotrace/subject-keys';
import { InMemorySubjectKeyStore } from '@memotrace/subject-keys/testing';
import { toMemoryRecord } from './records';
import { openRecords, sealBatch } from './sealing';

const CANARY = 'Zanzibar-7f3c';
const at = (minute: number) => `2024-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`;

/** Commands as the edge validates them (defaults filled in). */
function parsed(commands: unknown[]): Command[] {
  const result = parseCommandsRequest({ commands }, () => 'generated');
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.commands as Command[];
}

/**
 * Proposes, before answering, the inner store's keys for every ref except those of the subject ids in
 * `losing`, for which it proposes keys of its own that the answer then does not hold (as when a
 * concurrent creator's key, or a tombstone, wins in PostgreSQL).
 */
class ProposingStore implements SubjectKeyStore {
  readonly losing = new Set<string>();
  proposals = 0;

  constructor(private readonly inner: SubjectKeyStore) {}

  async keys(memoryId: string, refs: readonly KeyRef[], options: KeysOptions): Promise<Map<string, Buffer | null>> {
    const answer = await this.inner.keys(memoryId, refs, { create: options.create });
    if (options.create && options.onProposed) {
      const proposed = new Map<string, Buffer>();
      for (const ref of refs) {
        const key = answer.get(keyRefString(ref));
        proposed.set(keyRefString(ref), this.losing.has(ref.id) || !key ? randomBytes(32) : key);
      }
      this.proposals++;
      options.onProposed(proposed);
    }
    return answer;
  }

  destroy(memoryId: string, subject: { kind: SubjectKind; id: string }, throughGeneration: number): Promise<void> {
    return this.inner.destroy(memoryId, subject, throughGeneration);
  }

  dropMemory(memoryId: string): Promise<void> {
    return this.inner.dropMemory(memoryId);
  }
}

/** A memory written through the sealing path: decided, sealed, stored as the log stores it. */
function memory() {
  const keys = new ProposingStore(new InMemorySubjectKeyStore());
  const state: MemoryState = initialState();
  const stored: RecordContent[] = [];
  let minute = 0;
  return {
    keys,
    state,
    stored,
    async write(commands: unknown[]): Promise<MemoryRecord[]> {
      const { records } = decideBatch('m', state, parsed(commands), at(minute++));
      const sealed = await sealBatch(keys, 'm', records, state);
      stored.push(...sealed.map(({ type, data, metadata }) => ({ type, data, metadata })));
      return records;
    },
    async read(): Promise<MemoryRecord[]> {
      return (await openRecords(keys, stored, () => 'm')).map(toMemoryRecord);
    },
  };
}

const everyContentField: Record<string, unknown>[] = [
  {
    op: 'UPSERT_ENTITY',
    commandId: 'c1',
    entityId: 'p1',
    name: `${CANARY} name`,
    aliases: [`${CANARY} alias`],
    types: [`${CANARY} type`],
    reason: `${CANARY} reason`,
  },
  { op: 'UPSERT_ENTITY', commandId: 'c2', entityId: 'p2', name: 'Bob' },
  {
    op: 'UPSERT_EDGE',
    commandId: 'c3',
    factId: 'f1',
    src: 'p1',
    rel: 'likes',
    dst: { literal: `${CANARY} literal`, datatype: 'string' },
    validFrom: at(0),
    source: `${CANARY} source`,
    reason: `${CANARY} reason`,
  },
  { op: 'UPSERT_EDGE', commandId: 'c4', factId: 'f2', src: 'p2', rel: 'knows', dst: 'p2', validFrom: at(0), source: 'Bob said so' },
  {
    op: 'UPSERT_EVENT',
    commandId: 'c5',
    eventId: 'ev1',
    summary: `${CANARY} summary`,
    participants: [{ entityId: 'p1', role: 'host' }],
    includesFacts: [],
    timeSpan: { from: at(0), to: null },
  },
  { op: 'RECORD_MENTION', commandId: 'c6', mentionId: 'mn1', docId: 'd1', text: `${CANARY} text`, speaker: `${CANARY} speaker` },
];

describe('sealing the log', () => {
  it('keeps every content field out of the stored records and opens them back unchanged', async () => {
    const m = memory();
    const written = await m.write(everyContentField);
    expect(JSON.stringify(m.stored)).not.toContain(CANARY);
    // Structure stays readable without keys.
    expect(JSON.stringify(m.stored)).toContain('"factId":"f1"');
    expect(await m.read()).toEqual(written);
  });

  it('seals an unchanged command and a reason under the keys of what the command wrote', async () => {
    const m = memory();
    await m.write(everyContentField);
    const [unchanged] = await m.write([{ ...everyContentField[0]!, commandId: 'c7' }]);
    expect(unchanged!.type).toBe('CommandUnchanged');
    expect(JSON.stringify(m.stored)).not.toContain(CANARY);
    expect((await m.read()).at(-1)).toEqual(unchanged);
  });

  it('reads the erased subject’s content, and the reasons of commands that wrote it, as emptied once its key is destroyed', async () => {
    const m = memory();
    await m.write(everyContentField);
    const [erasure] = await m.write([{ op: 'ERASE', commandId: 'e1', subject: { entityId: 'p1' }, reason: 'asked to forget' }]);
    expect(erasure).toMatchObject({ type: 'SubjectErased', data: { generation: 0 }, meta: { reason: 'asked to forget' } });
    const read = await m.read();
    const byCommand = (commandId: string) => read.find((r) => r.meta.commandId === commandId)!;
    expect(byCommand('c1')).toMatchObject({ data: { name: null, aliases: [], types: [] }, meta: { reason: null } });
    expect(byCommand('c3')).toMatchObject({ data: { dst: null, source: null }, meta: { reason: null } });
    expect(byCommand('c5')).toMatchObject({ data: { summary: null } });
    // Content of other subjects keeps its keys.
    expect(byCommand('c2').data).toMatchObject({ name: 'Bob' });
    expect(byCommand('c4').data).toMatchObject({ dst: 'p2', source: 'Bob said so' });
    expect(byCommand('c6').data).toMatchObject({ text: `${CANARY} text`, speaker: `${CANARY} speaker` });
    expect(JSON.stringify(read.filter((r) => r.meta.commandId !== 'c6'))).not.toContain(CANARY);
  });

  it('destroys the keys again when a reader meets an erasure whose writer crashed before destroying them', async () => {
    const m = memory();
    await m.write(everyContentField);
    const { records } = decideBatch('m', m.state, parsed([{ op: 'ERASE', commandId: 'e1', subject: { mentionId: 'mn1' }, reason: 'r' }]), at(30));
    // Appended, then the process died: no destroy.
    m.stored.push(...(await sealBatch(m.keys, 'm', records, m.state)).map(({ type, data, metadata }) => ({ type, data, metadata })));
    const mention = (await m.read()).find((r) => r.meta.commandId === 'c6')!;
    expect(mention.data).toMatchObject({ text: null, speaker: null });
  });

  it('seals content written after an erasure in the same batch under the next generation, which survives it', async () => {
    const m = memory();
    await m.write(everyContentField);
    await m.write([
      { op: 'ERASE', commandId: 'e1', subject: { factId: 'f1' }, reason: 'r' },
      { ...everyContentField[2]!, commandId: 'c8', dst: { literal: 'new content', datatype: 'string' }, source: 'new source', validFrom: at(5) },
    ]);
    const read = await m.read();
    expect(read.find((r) => r.meta.commandId === 'c3')!.data).toMatchObject({ dst: null, source: null });
    expect(read.find((r) => r.meta.commandId === 'c8')!.data).toMatchObject({ dst: { literal: 'new content' }, source: 'new source' });
  });

  it('keeps what it sealed under proposed keys that the answer holds, and seals again under the answer where a proposal lost', async () => {
    const m = memory();
    // p1 and f1 get proposals that lose: their content must be sealed under the answer's keys.
    m.keys.losing.add('p1');
    m.keys.losing.add('f1');
    const written = await m.write(everyContentField);
    expect(m.keys.proposals).toBe(1);
    expect(JSON.stringify(m.stored)).not.toContain(CANARY);
    expect(await m.read()).toEqual(written);
  });

  it('refuses to seal under a destroyed generation even when a key for it was proposed', async () => {
    const m = memory();
    await m.write(everyContentField.slice(0, 1));
    await m.keys.destroy('m', { kind: 'entity', id: 'p1' }, 0);
    m.keys.losing.add('p1');
    const { records } = decideBatch(
      'm',
      m.state,
      [{ op: 'UPSERT_ENTITY', commandId: 'c9', entityId: 'p1', name: 'x', aliases: ['again'] } as Command],
      at(40),
    );
    await expect(sealBatch(m.keys, 'm', records, m.state)).rejects.toThrow(/destroyed or missing/);
  });

  it('refuses to seal under a destroyed generation rather than write content in the clear', async () => {
    const m = memory();
    await m.write(everyContentField.slice(0, 1));
    await m.keys.destroy('m', { kind: 'entity', id: 'p1' }, 0);
    const { records } = decideBatch(
      'm',
      m.state,
      [{ op: 'UPSERT_ENTITY', commandId: 'c9', entityId: 'p1', name: 'x', aliases: ['again'] } as Command],
      at(40),
    );
    await expect(sealBatch(m.keys, 'm', records, m.state)).rejects.toThrow(/destroyed or missing/);
  });
});
