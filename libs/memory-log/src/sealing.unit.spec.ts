import { parseCommandsRequest } from '@memotrace/contracts';
import { type Command, type MemoryRecord, type MemoryState, decideBatch, initialState } from '@memotrace/domain';
import type { RecordContent } from '@memotrace/log-store';
import { InMemorySubjectKeyStore } from '@memotrace/subject-keys/testing';
import { toMemoryRecord } from './records';
import { type SealedParts, erasuresOf, openRecords, sealBatch } from './sealing';

const CANARY = 'Zanzibar-7f3c';
const at = (minute: number) => `2024-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`;

/** Commands as the edge validates them (defaults filled in). */
function parsed(commands: unknown[]): Command[] {
  const result = parseCommandsRequest({ commands }, () => 'generated');
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.commands as Command[];
}

/** A memory written through the sealing path: decided, sealed, stored as the log stores it with its key sets. */
function memory() {
  const keys = new InMemorySubjectKeyStore();
  const state: MemoryState = initialState();
  const stored: RecordContent[] = [];
  let minute = 0;
  /** Seals a decided batch and stores it as an append would, without destroying the keys its erasures end. */
  const append = async (records: readonly MemoryRecord[]) => {
    const sealed = sealBatch(keys, 'm', records, state, stored.length);
    if (sealed.keySet) await keys.writeKeySet('m', sealed.keySet);
    stored.push(...sealed.records.map(({ type, data, metadata }) => ({ type, data, metadata })));
    return sealed;
  };
  return {
    keys,
    state,
    stored,
    append,
    decide: (commands: unknown[]) => decideBatch('m', state, parsed(commands), at(minute++)).records,
    async write(commands: unknown[]): Promise<MemoryRecord[]> {
      const records = this.decide(commands);
      await append(records);
      await keys.destroy('m', erasuresOf(records));
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
    // Appended, then the process died: no destroy.
    await m.append(m.decide([{ op: 'ERASE', commandId: 'e1', subject: { mentionId: 'mn1' }, reason: 'r' }]));
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

  it('seals each box under a key of its own in the batch’s key set, listed under the box’s subjects and generations', async () => {
    const m = memory();
    await m.write(everyContentField.slice(0, 2));
    const { records, keySet } = await m.append(m.decide(everyContentField.slice(2)));
    // The key set is the batch's first revision; one slot per box, in record order.
    expect(keySet!.id).toBe(2);
    expect(records.map((r) => (r.data as { sealed?: SealedParts }).sealed)).toEqual([
      { set: 2, content: { slot: 0, box: expect.any(String) } },
      { set: 2, content: { slot: 1, box: expect.any(String) } },
      { set: 2, content: { slot: 2, box: expect.any(String) } },
      { set: 2, content: { slot: 3, box: expect.any(String) } },
    ]);
    expect(keySet!.seeds).toHaveLength(4 * 32);
    expect(keySet!.subjects.map((name, i) => `${keySet!.guards[i]} ${name}`)).toEqual([
      '0 fact:0:f1',
      '0 entity:0:p1',
      '1 fact:0:f2',
      '1 entity:0:p2',
      '2 entity:0:p1',
      '3 mention:0:mn1',
      '3 doc:0:d1',
    ]);
    // The reason goes inside a one-record command's box: the stored metadata holds none.
    expect(records[0]!.metadata.reason).toBeNull();
    expect(JSON.stringify(records)).not.toContain(CANARY);
  });

  it('seals a reason its own box under every subject its command wrote when the command wrote several records', async () => {
    const m = memory();
    await m.write([
      { op: 'DEFINE_RELATION', commandId: 'r', rel: 'lives_in', cardinality: 'one' },
      { op: 'UPSERT_ENTITY', commandId: 'c1', entityId: 'p1', name: 'Ann' },
      {
        op: 'UPSERT_EDGE',
        commandId: 'c2',
        factId: 'f1',
        src: 'p1',
        rel: 'lives_in',
        dst: { literal: 'Porto', datatype: 'string' },
        validFrom: at(0),
      },
    ]);
    const move = m.decide([
      {
        op: 'UPSERT_EDGE',
        commandId: 'c3',
        factId: 'f2',
        src: 'p1',
        rel: 'lives_in',
        dst: { literal: 'Lisbon', datatype: 'string' },
        validFrom: at(9),
        reason: `${CANARY} moved`,
      },
    ]);
    expect(move.map((r) => r.type)).toEqual(['FactAsserted', 'FactSuperseded']);
    const { records, keySet } = await m.append(move);
    await m.keys.destroy('m', erasuresOf(move));
    const superseded = (records[1]!.data as { sealed: SealedParts }).sealed;
    expect(superseded).toEqual({ set: keySet!.id, reason: { slot: 1, box: expect.any(String) } });
    expect(keySet!.subjects.filter((_, i) => keySet!.guards[i] === 1).sort()).toEqual(['entity:0:p1', 'fact:0:f2']);
    expect(records.map((r) => r.metadata.reason)).toEqual([null, null]);
    expect((await m.read()).slice(-2).map((r) => r.meta.reason)).toEqual([`${CANARY} moved`, `${CANARY} moved`]);
    await m.keys.destroy('m', [{ subject: { kind: 'fact', id: 'f2' }, throughGeneration: 0 }]);
    expect((await m.read()).slice(-2).map((r) => r.meta.reason)).toEqual([null, null]);
  });

  it('writes no key set for a batch without content', async () => {
    const m = memory();
    const sealed = await m.append(m.decide([{ op: 'DEFINE_RELATION', commandId: 'r', rel: 'knows', cardinality: 'many' }]));
    expect(sealed.keySet).toBeNull();
    expect(sealed.records[0]!.data).not.toHaveProperty('sealed');
  });
});
